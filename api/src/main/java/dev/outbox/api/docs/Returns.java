package dev.outbox.api.docs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What an operation that builds its own {@code Response} (an idempotent write replays a stored
 * one) answers with on success; an operation that returns its view type needs no such note.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Returns {
    Class<?> value();
}
