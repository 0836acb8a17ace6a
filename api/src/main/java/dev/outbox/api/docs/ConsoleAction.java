package dev.outbox.api.docs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A repair of one row that the operator console offers as a button: {@code x-console} in
 * {@code /openapi.json}, which {@code console.js} reads, so a new action needs no edit there.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ConsoleAction {
    /** The button's text. */
    String label();

    /** Its place among the buttons, first to last. */
    int order();

    /** Whether the reason field must be filled in first. */
    boolean needsReason() default false;

    /** Drawn as a dangerous action (it cannot be undone). */
    boolean danger() default false;
}
