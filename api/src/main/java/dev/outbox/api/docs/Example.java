package dev.outbox.api.docs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A request body an operation documents, and the status it answers it with. {@code /openapi.json}
 * lists it under the operation's examples with {@code x-expect-status}; {@code OpenApiContractIT}
 * sends it to the running API and checks the answer against the document.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Repeatable(Example.List.class)
public @interface Example {
    /** The example's key in the document. */
    String name();

    String summary();

    /** The body, as JSON. */
    String body();

    /** The status the API answers it with. */
    int status();

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface List {
        Example[] value();
    }
}
