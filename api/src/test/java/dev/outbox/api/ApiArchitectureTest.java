package dev.outbox.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The API never talks to the broker, and its resources stay thin. */
class ApiArchitectureTest {
    private static final JavaClasses API = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.outbox.api");

    @Test
    void theApiHasNoDependencyOnTheBrokerClient() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("com.rabbitmq..")
                .because("only the relay publishes (seed 000); the API only writes outbox rows")
                .check(API);
    }

    @Test
    void theApiNeverReadsAHostOutOfAUri() {
        // URI.getHost() is null for a multi-host authority (amqp://u:p@h1:5701,h2:5702/v): the
        // API's readiness once answered 500 with the README's own cluster URI. The API needs no
        // broker address at all; anything that does parses such URIs in one place, elsewhere.
        noClasses()
                .should()
                .callMethod(java.net.URI.class, "getHost")
                .because("the API does not talk to the broker, and a multi-host URI has no single host")
                .check(API);
    }

    @Test
    void resourcesGoThroughApplicationServicesNotMappers() {
        noClasses()
                .that()
                .haveSimpleNameEndingWith("Resource")
                .should()
                .dependOnClassesThat(com.tngtech.archunit.base.DescribedPredicate.describe(
                        "MyBatis mappers",
                        c -> c.getPackageName().startsWith("dev.outbox.persistence")
                                && c.getSimpleName().endsWith("Mapper")))
                .because("a write is one @Transactional application-service method, never a resource's own SQL")
                .check(API);
    }

    @Test
    void noJpaOrHibernateAnywhere() {
        // one transaction manager (mybatis-guice) owns every write: a second ORM would need a second
        JavaClasses everything = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outbox");
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("jakarta.persistence..", "javax.persistence..", "org.hibernate..")
                .because("MyBatis owns the transaction of the business write and the outbox insert")
                .check(everything);
    }

    @Test
    void theBrokerClientIsNotEvenOnTheClassPath() {
        try {
            Class.forName("com.rabbitmq.client.Channel");
        } catch (ClassNotFoundException expected) {
            return;
        }
        throw new AssertionError("amqp-client is on the API's class path");
    }
}
