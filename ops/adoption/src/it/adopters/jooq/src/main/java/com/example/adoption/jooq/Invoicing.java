package com.example.adoption.jooq;

import com.example.adoption.Database;
import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.jooq.JooqOutbox;
import java.math.BigDecimal;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** A jOOQ service: its invoice and its message in one DSLContext.transaction. */
public final class Invoicing {
    static final String TABLE = "adopter_jooq_invoices";

    private final DSLContext dsl;
    // the adopting guide's jOOQ snippet, as written there (below too)
    private final JooqOutbox outbox = new JooqOutbox();

    public Invoicing(DSLContext dsl) {
        this.dsl = dsl;
    }

    public UUID issue(UUID id, BigDecimal amount, boolean failAfterRecording) {
        Map<String, Object> payload = Database.issued(id, amount);
        MessageContext context = MessageContext.none();
        UUID[] messageId = new UUID[1];
        dsl.transaction(trx -> {
            trx.dsl().insertInto(DSL.table(TABLE), DSL.field("id"), DSL.field("amount")).values(id, amount).execute();
            messageId[0] = outbox.record(trx.dsl(), new MessageType("invoice.issued", 1), Aggregate.unversioned("invoice", id.toString()), payload, context);
            if (failAfterRecording) {
                throw new IllegalStateException("the rest of the business step failed");
            }
        });
        return messageId[0];
    }

    /** The DSLContext itself, outside any transaction: refused. */
    public void recordOutsideATransaction(UUID id) {
        outbox.record(dsl, new MessageType("invoice.issued", 1), Aggregate.unversioned("invoice", id.toString()), Database.issued(id, BigDecimal.ONE), MessageContext.none());
    }
}
