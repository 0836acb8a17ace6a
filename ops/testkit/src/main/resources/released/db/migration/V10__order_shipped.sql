-- Orders can ship: CAPTURED -> SHIPPED (POST /orders/{id}/ship, event order.shipped). A shipped
-- order keeps its payment, like a captured one. The status check is the column's default-named
-- one from V1. On a large orders table, adding a CHECK scans it under an ACCESS EXCLUSIVE lock:
-- see the README's "Upgrading a large outbox" for doing it NOT VALID first.
ALTER TABLE orders
    DROP CONSTRAINT orders_status_check,
    ADD CONSTRAINT orders_status_check CHECK (status IN ('PLACED', 'CAPTURED', 'SHIPPED', 'CANCELLED')),
    ADD CONSTRAINT orders_shipped_has_payment CHECK (status <> 'SHIPPED' OR payment_id IS NOT NULL);
