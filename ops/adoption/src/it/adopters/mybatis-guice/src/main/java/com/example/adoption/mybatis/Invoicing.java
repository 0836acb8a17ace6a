package com.example.adoption.mybatis;

import com.example.adoption.Database;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import dev.outbox.OutboxPersistence;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.UUID;
import javax.sql.DataSource;
import org.mybatis.guice.MyBatisModule;
import org.mybatis.guice.transactional.Transactional;

/** A MyBatis-Guice service with a MyBatisModule of its own: the outbox's adapter goes beside it. */
public class Invoicing {
    static final String TABLE = "adopter_mybatis_invoices";

    /** The service's own module: its environment, its data source, its mappers. */
    static final class YourMyBatisModule extends MyBatisModule {
        private final DataSource dataSource;

        YourMyBatisModule(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        protected void initialize() {
            environmentId("invoicing");
            bindDataSourceProvider((jakarta.inject.Provider<DataSource>) () -> dataSource);
            bindTransactionFactoryType(org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory.class);
            addMapperClass(InvoiceMapper.class);
        }
    }

    public static Invoicing start(DataSource dataSource) {
        // the adopting guide's MyBatis-Guice snippet, as written there
        Injector injector = Guice.createInjector(
                new YourMyBatisModule(dataSource),    // your environment, your mappers, your transaction factory
                OutboxPersistence.myBatisGuice());   // binds Outbox alone
        return injector.getInstance(Invoicing.class);
    }

    private final InvoiceMapper invoices;
    private final Outbox outbox;

    @Inject
    Invoicing(InvoiceMapper invoices, Outbox outbox) {
        this.invoices = invoices;
        this.outbox = outbox;
    }

    @Transactional
    public UUID issue(UUID id, BigDecimal amount) {
        invoices.insert(id, amount);
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

    public void recordOutsideATransaction(UUID id) {
        outbox.record(
                new MessageType("invoice.issued", 1),
                Aggregate.unversioned("invoice", id.toString()),
                Database.issued(id, BigDecimal.ONE),
                MessageContext.none());
    }
}
