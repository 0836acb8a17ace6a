package dev.outbox.api.idempotency;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.Problem;
import dev.outbox.persistence.idempotency.IdempotencyKeyMapper;
import dev.outbox.persistence.idempotency.StoredIdempotencyKey;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.mybatis.guice.transactional.Transactional;

/**
 * Runs a write at most once per {@code Idempotency-Key}. The key is claimed, the write done and
 * its response stored all in one transaction, so either the order, its outbox rows and the key
 * commit together or none does. A retry with the same key and request gets the stored response
 * again and writes nothing; the same key with another request is {@code 422}. Concurrent
 * requests with one key queue on the key's primary key: one writes, the others replay.
 */
@Singleton
public class IdempotentExecutor {
    private final IdempotencyKeyMapper keys;
    private final Duration retention;

    @Inject
    public IdempotentExecutor(IdempotencyKeyMapper keys, @Named("idempotency.retention") Duration retention) {
        this.keys = keys;
        this.retention = retention;
    }

    @Transactional
    public StoredResponse execute(IdempotencyRequest request, Callable<StoredResponse> write) throws Exception {
        if (!request.present()) {
            return write.call();
        }
        Boolean claimed = keys.claim(request.scope(), request.key(), request.fingerprint(), retention.toMillis());
        if (claimed == null) {
            StoredIdempotencyKey stored = keys.find(request.scope(), request.key());
            if (!stored.requestHash().equals(request.fingerprint())) {
                throw new ApiException(Problem.of(
                        422,
                        "idempotency_key_reused",
                        "Idempotency-Key already used",
                        "this Idempotency-Key was used for a different request (method, path or body); use a new"
                                + " key for a new request"));
            }
            return new StoredResponse(stored.responseStatus(), stored.responseBody(), stored.responseLocation(), true);
        }
        StoredResponse response = write.call();
        keys.complete(request.scope(), request.key(), response.status(), response.body(), response.location());
        return response;
    }
}
