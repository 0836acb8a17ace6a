package dev.outbox.api.docs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Answers an operation gives because of the code it shares with others, declared on the method
 * where that code is called ({@link SharedAnswers} writes them): the answers follow the code, not
 * the shape of a path.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Answers {
    Shared value();

    enum Shared {
        /** A state change of one order through {@code OrderResource.transition}: 404, 409, 422. */
        ORDER_TRANSITION,
        /** A file of a page ({@code BundledText}): JavaScript or CSS, 404 for any other name. */
        PAGE_FILE
    }
}
