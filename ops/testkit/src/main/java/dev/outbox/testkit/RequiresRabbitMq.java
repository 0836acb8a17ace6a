package dev.outbox.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test of behaviour only RabbitMQ has (a queue argument, {@code rabbitmqctl}). On another AMQP
 * 0-9-1 broker (the embedded one) it is skipped and the report says why; on RabbitMQ it runs.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresRabbitMq.Condition.class)
public @interface RequiresRabbitMq {
    /** What RabbitMQ-only behaviour the test needs. */
    String value();

    /** True when the test also runs {@code rabbitmqctl} against the broker. */
    boolean rabbitmqctl() default false;

    /** Decides per test from the broker the suite runs against. */
    final class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            RequiresRabbitMq need = context.getElement()
                    .map(e -> e.getAnnotation(RequiresRabbitMq.class))
                    .orElse(null);
            if (need == null) {
                return ConditionEvaluationResult.enabled("no RabbitMQ-only behaviour");
            }
            BrokerEndpoint broker = BrokerEndpoint.get();
            if (!broker.rabbitMq()) {
                return ConditionEvaluationResult.disabled(
                        "needs RabbitMQ (" + need.value() + "); the suite runs on " + broker.source());
            }
            if (need.rabbitmqctl() && !(broker.localRabbitmqctl() && RabbitAdmin.available())) {
                return ConditionEvaluationResult.disabled("needs rabbitmqctl on this host (" + need.value() + ")");
            }
            return ConditionEvaluationResult.enabled("RabbitMQ: " + broker.source());
        }
    }
}
