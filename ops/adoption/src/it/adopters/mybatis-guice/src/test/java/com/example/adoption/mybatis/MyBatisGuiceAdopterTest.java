package com.example.adoption.mybatis;

import com.example.adoption.AdopterCases;
import java.math.BigDecimal;
import java.util.UUID;

class MyBatisGuiceAdopterTest extends AdopterCases {
    private final Invoicing invoicing = Invoicing.start(dataSource);

    @Override
    protected boolean bringsMyBatis() {
        return true;
    }

    @Override
    protected String table() {
        return Invoicing.TABLE;
    }

    @Override
    protected UUID issue(UUID invoice, BigDecimal amount) {
        return invoicing.issue(invoice, amount);
    }

    @Override
    protected void issueThenFail(UUID invoice, BigDecimal amount) {
        invoicing.issueThenFail(invoice, amount);
    }

    @Override
    protected void recordOutsideATransaction(UUID invoice) {
        invoicing.recordOutsideATransaction(invoice);
    }
}
