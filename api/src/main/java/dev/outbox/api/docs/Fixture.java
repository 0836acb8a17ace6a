package dev.outbox.api.docs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The state an operation's examples need before they can be sent (a placed order, a parked row):
 * {@code x-fixture} in {@code /openapi.json}, which the contract and fuzz tests set up.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Fixture {
    String value();
}
