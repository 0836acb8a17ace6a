package dev.outbox.example.invoicing;

import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Select;

/** The invoicing service's own mapper, in the same MyBatis session factory as the outbox's. */
public interface InvoiceMapper {
    @Insert("INSERT INTO invoices (id, order_id, amount, currency, issued_at)"
            + " VALUES (#{id}, #{orderId}, #{amount}, #{currency}, #{issuedAt})")
    int insert(Invoice invoice);

    @Select("SELECT id, order_id, amount, currency, issued_at FROM invoices WHERE id = #{id}")
    Optional<Invoice> find(UUID id);
}
