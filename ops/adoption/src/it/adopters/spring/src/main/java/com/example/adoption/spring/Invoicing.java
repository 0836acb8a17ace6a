package com.example.adoption.spring;

import com.example.adoption.Database;
import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import java.math.BigDecimal;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** A Spring service: its invoice through JdbcTemplate, its message through the outbox, one @Transactional. */
public class Invoicing {
    static final String TABLE = "adopter_spring_invoices";

    private final JdbcTemplate jdbc;
    private final Outbox outbox;

    public Invoicing(JdbcTemplate jdbc, Outbox outbox) {
        this.jdbc = jdbc;
        this.outbox = outbox;
    }

    @Transactional
    public UUID issue(UUID id, BigDecimal amount) {
        jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES (?, ?)", id, amount);
        return outbox.record(
                new MessageType("invoice.issued", 1),
                Aggregate.unversioned("invoice", id.toString()),
                Database.issued(id, amount),
                MessageContext.none());
    }

    @Transactional
    public void issueThenFail(UUID id, BigDecimal amount) {
        issue(id, amount);
        throw new IllegalStateException("the rest of the business step failed");
    }

    /** No @Transactional: nothing to join. */
    public void recordOutsideATransaction(UUID id) {
        outbox.record(
                new MessageType("invoice.issued", 1),
                Aggregate.unversioned("invoice", id.toString()),
                Database.issued(id, BigDecimal.ONE),
                MessageContext.none());
    }
}
