package com.example.adoption.jooq;

import com.example.adoption.AdopterCases;
import java.math.BigDecimal;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

class JooqAdopterTest extends AdopterCases {
    private final Invoicing invoicing = new Invoicing(DSL.using(dataSource, SQLDialect.POSTGRES));

    @Override
    protected String table() {
        return Invoicing.TABLE;
    }

    @Override
    protected UUID issue(UUID invoice, BigDecimal amount) {
        return invoicing.issue(invoice, amount, false);
    }

    @Override
    protected void issueThenFail(UUID invoice, BigDecimal amount) {
        invoicing.issue(invoice, amount, true);
    }

    @Override
    protected void recordOutsideATransaction(UUID invoice) {
        invoicing.recordOutsideATransaction(invoice);
    }
}
