package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Setting;
import dev.outbox.deploy.Workloads.Workload;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the manifests hand each process is what its code reads: every {@code OUTBOX_*} variable a
 * declared setting, and a valid value of it; the probes and the scraper on the port and paths the
 * process serves; each process only the secrets it uses; and the pod as locked down as the images
 * allow.
 */
class DeploymentSettingsTest {
    /** The paths ProcessEndpoint and the API's HealthResource serve; ProbesIT calls the base's on running processes. */
    private static final Map<String, String> PROBE_PATHS = Map.of(
            "liveness", "/health/live",
            "startup", "/health/live",
            "readiness", "/health/ready");

    @Test
    void everyVariableIsADeclaredSettingWithAValueItAccepts() {
        for (Workload w : Workloads.all()) {
            w.env().forEach((name, value) -> {
                if (name.startsWith("OTEL_")) {
                    return; // OpenTelemetry's own, read by its SDK
                }
                Setting<?> s = Declarations.of(name)
                        .orElseThrow(() -> new AssertionError(w + " sets " + name + ", which no process reads"));
                read(w.settings(), s); // throws, naming the variable, for a value it does not accept
            });
        }
    }

    /** The variable is set, so a default computed from others (no declared one) plays no part. */
    private static <T> T read(dev.outbox.config.Settings settings, Setting<T> s) {
        try {
            return settings.get(s);
        } catch (IllegalStateException computedDefault) {
            return settings.get(s, null);
        }
    }

    @Test
    void probesAndTheScraperUseThePortAndPathsTheProcessServes() {
        for (Workload w : Workloads.all()) {
            int port = w.process().httpPort(w.settings());
            assertEquals(port, w.container().getPorts().get(0).getContainerPort(), w + ": the container port");
            assertEquals(
                    String.valueOf(port),
                    w.deployment()
                            .getSpec()
                            .getTemplate()
                            .getMetadata()
                            .getAnnotations()
                            .get("prometheus.io/port"),
                    w + ": the scraper's port");
            Map.of("liveness", w.liveness(), "startup", w.startup(), "readiness", w.readiness())
                    .forEach((kind, probe) -> {
                        assertEquals(port, w.port(probe.getHttpGet().getPort()), w + ": the " + kind + " probe's port");
                        assertEquals(
                                PROBE_PATHS.get(kind),
                                probe.getHttpGet().getPath(),
                                w + ": the " + kind + " probe's path");
                    });
        }
    }

    @Test
    void eachProcessGetsOnlyTheSecretsItUses() {
        for (Workload w : Workloads.all()) {
            boolean api = w.process() == OutboxProcess.API;
            assertEquals(!api, w.env().containsKey("OUTBOX_AMQP_URI"), w + ": the broker URI (the API has no broker)");
            assertEquals(api, w.env().containsKey("OUTBOX_OPS_TOKEN"), w + ": the operator token (the API's alone)");
            assertTrue(w.env().containsKey("OUTBOX_DB_PASSWORD"), w + ": the database password");
        }
    }

    @Test
    void podsRunAsTheImagesUserOnAReadOnlyRootWithoutServiceLinksOrAnApiToken() {
        for (Workload w : Workloads.all()) {
            PodSpec pod = w.deployment().getSpec().getTemplate().getSpec();
            assertFalse(pod.getEnableServiceLinks(), w + ": service links set <SERVICE>_PORT variables");
            assertFalse(pod.getAutomountServiceAccountToken(), w + ": no process calls the Kubernetes API");
            assertTrue(pod.getSecurityContext().getRunAsNonRoot(), w.toString());
            assertEquals(65532L, pod.getSecurityContext().getRunAsUser(), w.toString());
            var container = w.container().getSecurityContext();
            assertTrue(container.getReadOnlyRootFilesystem(), w.toString());
            assertFalse(container.getAllowPrivilegeEscalation(), w.toString());
            String tmp = w.container().getVolumeMounts().stream()
                    .filter(m -> m.getMountPath().equals("/tmp"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(w + ": the JVM needs a writable /tmp"))
                    .getName();
            assertTrue(
                    pod.getVolumes().stream().anyMatch(v -> v.getName().equals(tmp) && v.getEmptyDir() != null),
                    w + ": /tmp is an emptyDir");
        }
    }

    /**
     * Memory is requested at its limit: the JVM sizes its heap from the limit, and a node short of
     * memory evicts pods using more than they requested first. CPU may burst to its limit.
     */
    @Test
    void everyContainerRequestsAndLimitsCpuAndMemory() {
        for (Workload w : Workloads.all()) {
            var r = w.container().getResources();
            for (String resource : new String[] {"cpu", "memory"}) {
                assertTrue(r.getRequests().containsKey(resource), w + " requests " + resource);
                assertTrue(r.getLimits().containsKey(resource), w + " limits " + resource);
            }
            assertEquals(
                    Quantity.getAmountInBytes(r.getRequests().get("memory")),
                    Quantity.getAmountInBytes(r.getLimits().get("memory")),
                    w + ": memory requested at its limit");
            assertTrue(
                    Quantity.getAmountInBytes(r.getRequests().get("cpu"))
                                    .compareTo(Quantity.getAmountInBytes(
                                            r.getLimits().get("cpu")))
                            <= 0,
                    w + ": cpu request within its limit");
        }
    }

    @Test
    void noRolloutTakesAPodAwayBeforeItsSuccessorIsReady() {
        for (Workload w : Workloads.all()) {
            IntOrString unavailable =
                    w.deployment().getSpec().getStrategy().getRollingUpdate().getMaxUnavailable();
            assertEquals(0, unavailable.getIntVal(), w.toString());
        }
    }
}
