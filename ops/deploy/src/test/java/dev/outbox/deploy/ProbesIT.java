package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.api.ApiApp;
import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.deploy.ManifestFiles.Document;
import dev.outbox.relay.RelayApp;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.junit.TestResources;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The probes and the scraper the base's Deployments name are paths the processes answer: the API,
 * the relay and the ledger consumer run here (on ports the OS picks; DeploymentSettingsTest holds the
 * manifests' ports to the processes' settings) and each path of each probe answers 200 once they
 * are up, as does the {@code prometheus.io/path}.
 */
class ProbesIT {
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @RegisterExtension
    final TestResources closing = new TestResources();

    @Test
    void everyPathTheManifestsProbeOrScrapeAnswersOnceTheProcessIsUp() throws Exception {
        Settings settings = new Settings(TestProcesses.freshEnv(Map.of()));
        Map<String, Integer> ports = Map.of(
                "outbox-api", closing.add(ApiApp.start(settings)).port(),
                "outbox-relay", closing.add(RelayApp.start(settings)).httpPort(),
                "outbox-ledger",
                        closing.add(ConsumerApp.start(settings, LedgerConsumer.REGISTRATION))
                                .httpPort());

        StrictManifests strict = StrictManifests.strict();
        for (Document d : ManifestFiles.in(ManifestFiles.BASE)) {
            if (!(strict.read(d.tree(), d.where()) instanceof Deployment deployment)
                    || !ports.containsKey(deployment.getMetadata().getName())) {
                continue;
            }
            int port = ports.get(deployment.getMetadata().getName());
            Container c =
                    deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            for (Probe probe : List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe())) {
                assertAnswers(port, probe.getHttpGet().getPath(), d.where());
            }
            assertAnswers(
                    port,
                    deployment
                            .getSpec()
                            .getTemplate()
                            .getMetadata()
                            .getAnnotations()
                            .get("prometheus.io/path"),
                    d.where());
        }
    }

    private void assertAnswers(int port, String path, String where) {
        org.awaitility.Awaitility.await(where + " " + path)
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertEquals(
                        200,
                        http.send(
                                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode(),
                        where + " " + path));
    }
}
