package com.example.adoption.jdbc;

import com.example.adoption.AdopterCases;
import java.math.BigDecimal;
import java.util.UUID;

class PlainJdbcAdopterTest extends AdopterCases {
    private final Invoicing invoicing = new Invoicing(dataSource);

    @Override
    protected String table() {
        return Invoicing.TABLE;
    }

    @Override
    protected UUID issue(UUID invoice, BigDecimal amount) throws Exception {
        return invoicing.issue(invoice, amount, false);
    }

    @Override
    protected void issueThenFail(UUID invoice, BigDecimal amount) throws Exception {
        invoicing.issue(invoice, amount, true);
    }

    @Override
    protected void recordOutsideATransaction(UUID invoice) throws Exception {
        invoicing.recordInAutoCommit(invoice);
    }
}
