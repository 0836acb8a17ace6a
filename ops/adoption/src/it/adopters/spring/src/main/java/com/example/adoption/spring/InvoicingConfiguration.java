package com.example.adoption.spring;

import com.example.adoption.Database;
import dev.outbox.Outbox;
import dev.outbox.spring.SpringOutbox;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** The service's wiring; the outbox is one bean. */
@Configuration
@EnableTransactionManagement
public class InvoicingConfiguration {
    @Bean
    DataSource dataSource() {
        return Database.dataSource();
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
        return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
        return new JdbcTemplate(dataSource);
    }

    // the adopting guide's Spring snippet, as written there
    @Bean
    Outbox outbox(DataSource dataSource) {     // the DataSource your transaction manager was given
        return SpringOutbox.on(dataSource);
    }

    @Bean
    Invoicing invoicing(JdbcTemplate jdbc, Outbox outbox) {
        return new Invoicing(jdbc, outbox);
    }
}
