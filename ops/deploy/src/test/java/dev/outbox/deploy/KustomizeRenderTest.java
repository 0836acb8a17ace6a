package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.deploy.ManifestFiles.Document;
import dev.outbox.deploy.Workloads.Workload;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Each overlay renders (kustomize, offline) into what it says it is: its images, replicas and
 * namespace, every Deployment's ConfigMap present under the name kustomize gave it.
 */
class KustomizeRenderTest {
    @Test
    void theBaseRendersWithTheImagesTags() {
        List<Document> docs = Kustomize.render(ManifestFiles.BASE);
        assertEquals(
                Map.of(
                        "Deployment", 4L,
                        "PodDisruptionBudget", 4L,
                        "Service", 1L,
                        "ConfigMap", 1L),
                kinds(docs));
    }

    @Test
    void productionRunsTheRegistrysReleaseWithTwoOfEachWorkerAndTheApiAutoscaled() {
        Map<String, Workload> w = byName("production");
        w.values()
                .forEach(x -> assertEquals(
                        "registry.example.com/outbox/" + x.name() + ":1.0.0",
                        x.container().getImage(),
                        x.toString()));
        assertNull(w.get("outbox-api").deployment().getSpec().getReplicas(), "the autoscaler owns the API's count");
        assertEquals(6, w.get("outbox-api").maxReplicas());
        for (String worker : List.of("outbox-relay", "outbox-ledger", "outbox-shipments")) {
            assertEquals(2, w.get(worker).deployment().getSpec().getReplicas(), worker);
        }
        assertEquals("quorum", w.get("outbox-relay").env().get("OUTBOX_AMQP_QUEUE_TYPE"));
        assertTrue(w.get("outbox-relay").env().get("OUTBOX_DB_URL").contains("targetServerType=primary"));
        Kustomize.render(ManifestFiles.OVERLAYS.resolve("production"))
                .forEach(d -> assertEquals(
                        "outbox", d.tree().at("/metadata/namespace").asString(), d.where()));
    }

    @Test
    void localRunsOneOfEachFromTheLocallyBuiltImages() {
        Map<String, Workload> w = byName("local");
        w.values().forEach(x -> {
            assertEquals(x.name() + ":1.0.0-SNAPSHOT", x.container().getImage(), x.toString());
            assertEquals(1, x.maxReplicas(), x.toString());
            assertEquals("text", x.env().get("OUTBOX_LOG_FORMAT"), x.toString());
        });
    }

    private static Map<String, Workload> byName(String overlay) {
        Map<String, Workload> out = new TreeMap<>();
        Workloads.of(ManifestFiles.OVERLAYS.resolve(overlay)).forEach(w -> out.put(w.name(), w));
        assertEquals(
                List.of("outbox-api", "outbox-ledger", "outbox-relay", "outbox-shipments"), List.copyOf(out.keySet()));
        return out;
    }

    private static Map<String, Long> kinds(List<Document> docs) {
        Map<String, Long> out = new TreeMap<>();
        docs.forEach(d -> out.merge(d.tree().path("kind").asString(), 1L, Long::sum));
        return out;
    }
}
