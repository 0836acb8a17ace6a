package com.example.adoption.spring;

import com.example.adoption.AdopterCases;
import java.math.BigDecimal;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

class SpringAdopterTest extends AdopterCases {
    private final AnnotationConfigApplicationContext context =
            new AnnotationConfigApplicationContext(InvoicingConfiguration.class);
    private final Invoicing invoicing = context.getBean(Invoicing.class);

    @AfterEach
    void close() {
        context.close();
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
