package dev.outbox.persistence.cdc;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.mybatis.guice.transactional.Transactional;

/** What the CDC relay asks of the database, each call one transaction ({@link CdcMapper}). */
@Singleton
public class CdcStore {
    /** A failed attempt of a streamed row: retried after {@code delay}, or parked when null. */
    public record Failure(UUID id, ErrorCode code, String message, Duration delay) {}

    private final CdcMapper mapper;

    @Inject
    public CdcStore(CdcMapper mapper) {
        this.mapper = mapper;
    }

    @Transactional(force = true)
    public Optional<CdcSlotView> slot(String name) {
        return Optional.ofNullable(mapper.slot(name));
    }

    @Transactional(force = true)
    public String createSlot(String name) {
        return mapper.createSlot(name);
    }

    @Transactional(force = true)
    public void dropSlot(String name) {
        mapper.dropSlot(name);
    }

    @Transactional(force = true)
    public String walLevel() {
        return mapper.walLevel();
    }

    @Transactional(force = true)
    public boolean publishesOutbox(String publication) {
        return mapper.publishesOutbox(publication);
    }

    /** {@code publication} is checked by the caller to be a plain name (CdcConfig): it is spliced in. */
    @Transactional(force = true)
    public void addOutboxTo(String publication) {
        mapper.addOutboxTo(publication);
    }

    @Transactional(force = true)
    public String emitTick(String prefix) {
        return mapper.emitTick(prefix);
    }

    @Transactional(force = true)
    public Optional<CdcPosition> position(String slot) {
        return Optional.ofNullable(mapper.position(slot));
    }

    @Transactional(force = true)
    public void startPosition(String slot, String relayId) {
        mapper.startPosition(slot, relayId);
    }

    @Transactional(force = true)
    public void savePosition(String slot, String relayId, long streamXmin, String confirmedLsn, long streamTimeMicros) {
        mapper.savePosition(slot, relayId, streamXmin, confirmedLsn, streamTimeMicros);
    }

    /**
     * Marks the rows published that are still {@code PENDING}; answers for every row the statement
     * saw (a row it did not see is not visible yet, or gone).
     */
    @Transactional(force = true)
    public List<CdcWrite> markPublished(List<UUID> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return mapper.markPublished(ids.toArray(UUID[]::new));
    }

    /** Records failed attempts of rows that are still {@code PENDING}; answers as {@link #markPublished}. */
    @Transactional(force = true)
    public List<CdcWrite> recordFailures(List<Failure> failures) {
        if (failures.isEmpty()) {
            return List.of();
        }
        int n = failures.size();
        UUID[] ids = new UUID[n];
        String[] codes = new String[n];
        String[] messages = new String[n];
        Long[] delays = new Long[n];
        for (int i = 0; i < n; i++) {
            Failure f = failures.get(i);
            ids[i] = f.id();
            codes[i] = f.code().name();
            messages[i] = f.message();
            delays[i] = f.delay() == null ? -1L : f.delay().toMillis();
        }
        return mapper.recordFailures(ids, codes, messages, delays);
    }

    /**
     * Of {@code rows} (each with a version), the indexes (0-based) of those that must wait: an
     * unfinished earlier version holds them, or the row the stream left behind for their aggregate
     * ({@code leftBehind}, same positions, null where none) is not seen finished.
     */
    @Transactional(force = true)
    public Set<Integer> heldBehindEarlierVersions(List<OutboxRecord> rows, List<UUID> leftBehind) {
        if (rows.isEmpty()) {
            return Set.of();
        }
        int n = rows.size();
        String[] types = new String[n];
        String[] aggregates = new String[n];
        Long[] versions = new Long[n];
        for (int i = 0; i < n; i++) {
            types[i] = rows.get(i).aggregateType();
            aggregates[i] = rows.get(i).aggregateId();
            versions[i] = rows.get(i).aggregateVersion();
        }
        Set<Integer> held = new HashSet<>();
        for (Integer oneBased :
                mapper.heldBehindEarlierVersions(types, aggregates, versions, leftBehind.toArray(UUID[]::new))) {
            held.add(oneBased - 1);
        }
        return held;
    }
}
