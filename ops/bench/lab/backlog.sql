-- 50,001 pending rows: 33,334 orders, every second one also captured (version 2 held back by ordering)
INSERT INTO message_outbox (aggregate_type, aggregate_id, aggregate_version, message_type, exchange_name, routing_key, payload, correlation_id)
SELECT 'order', 'ord-' || g, v, CASE v WHEN 1 THEN 'order.created' ELSE 'payment.captured' END, 'orders.events', 'order.created',
       jsonb_build_object('orderId', 'ord-' || g, 'customerId', 'customer-' || (g % 5000), 'lines', jsonb_build_array(jsonb_build_object('sku','SKU-1','qty',1,'price','19.99'),jsonb_build_object('sku','SKU-GIFT-WRAP','qty',1,'price','2.50')), 'total', '22.49', 'currency','EUR'),
       'bench-' || g
  FROM generate_series(1, 33334) g, LATERAL (SELECT 1 AS v UNION ALL SELECT 2 WHERE g % 2 = 0) vv
 ORDER BY g, v;
