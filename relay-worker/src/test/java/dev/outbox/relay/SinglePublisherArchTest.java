package dev.outbox.relay;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.rabbitmq.client.Channel;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's thesis as a build rule: the relay is the only publisher. Only the confirm publisher
 * in {@code dev.outbox.messaging.publish} may call {@code basicPublish}; the relay reaches the
 * broker through it, and nothing else of ours may.
 */
class SinglePublisherArchTest {
    static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.outbox");

    static final ArchRule ONLY_THE_CONFIRM_PUBLISHER_PUBLISHES = noClasses()
            .that()
            .resideOutsideOfPackage("dev.outbox.messaging.publish..")
            .and()
            .resideOutsideOfPackage("dev.outbox.testkit..")
            .should()
            .callMethodWhere(target(name("basicPublish"))
                    .and(target(owner(describe("a RabbitMQ Channel", o -> o.isAssignableTo(Channel.class))))))
            .because("only the relay publishes (seed 000): it alone calls basicPublish, through the confirm"
                    + " publisher, so every message is confirmed, mandatory and recorded in the outbox");

    @Test
    void onlyTheConfirmPublisherCallsBasicPublish() {
        ONLY_THE_CONFIRM_PUBLISHER_PUBLISHES.check(PRODUCTION);
    }

    @Test
    void theRuleCatchesAViolation() {
        JavaClasses offender = new ClassFileImporter().importClasses(RogueHandler.class);
        try {
            ONLY_THE_CONFIRM_PUBLISHER_PUBLISHES.check(offender);
        } catch (AssertionError expected) {
            return;
        }
        throw new AssertionError("the rule let a basicPublish outside the publisher through");
    }

    /** A stand-in for the mistake the rule exists for: publishing from a handler after commit. */
    static final class RogueHandler {
        void afterCommit(Channel channel) throws java.io.IOException {
            channel.basicPublish("orders.events", "order.created", null, new byte[0]);
        }
    }
}
