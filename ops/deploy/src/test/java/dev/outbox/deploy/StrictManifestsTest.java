package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.deploy.ManifestFiles.Document;
import dev.outbox.deploy.StrictManifests.InvalidManifest;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Every manifest is an object of the Kubernetes API with no field it does not have and no value of
 * the wrong type: the base's, each overlay's patches and resources, the example Secret, and what
 * each overlay renders to. The cases below are the mistakes the reader exists for;
 * {@link StrictManifestsPropertyTest} makes thousands more out of the real manifests.
 */
class StrictManifestsTest {
    private final StrictManifests strict = StrictManifests.strict();

    @Test
    void everyFileReadsStrictly() {
        List<Document> docs = ManifestFiles.all();
        assertTrue(docs.size() >= 15, "found only " + docs.size() + " documents: is the scan blind?");
        docs.forEach(d -> strict.read(d.tree(), d.where()));
    }

    @Test
    void whatEachOverlayRendersReadsStrictly() {
        for (Path overlay : ManifestFiles.overlays()) {
            List<Document> docs = Kustomize.render(overlay);
            assertTrue(docs.size() >= 10, overlay + " renders " + docs.size() + " objects");
            docs.forEach(d -> strict.read(d.tree(), d.where()));
        }
    }

    @Test
    void aNumberWrittenAsAStringIsRefused() {
        assertRefused("replicas", deployment("replicas: \"3\""));
    }

    @Test
    void aNumberWhereTheApiWantsAStringIsRefused() {
        assertRefused(
                "env",
                deployment(
                        "template: {spec: {containers: [{name: a, image: a, env: [{name: OUTBOX_DB_POOL_SIZE, value: 10}]}]}}"));
        assertRefused("labels", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {tier: 2}}\n");
        assertRefused(
                "data", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {OUTBOX_DB_MIGRATE: false}\n");
    }

    @Test
    void aBooleanWrittenAsAStringIsRefused() {
        assertRefused(
                "readOnlyRootFilesystem",
                deployment("template: {spec: {containers: [{name: a, image: a, securityContext:"
                        + " {readOnlyRootFilesystem: \"true\"}}]}}"));
    }

    @Test
    void aMisspeltFieldIsRefusedThoughFabric8WouldKeepIt() {
        String misspelt = deployment("template: {spec: {containers: [{name: a, image: a, livenesProbe:"
                + " {httpGet: {path: /health/live, port: 8080}}}]}}");
        JsonNode doc = StrictManifests.documents(misspelt).get(0);

        Deployment lenient = (Deployment) StrictManifests.withoutTheWalk().read(doc, "misspelt");
        assertEquals(
                null,
                lenient.getSpec().getTemplate().getSpec().getContainers().get(0).getLivenessProbe(),
                "read leniently, the probe is simply gone");
        assertRefused("spec.template.spec.containers[0].livenesProbe", misspelt);
    }

    @Test
    void aKeyTwiceIsRefused() {
        assertRefused("replicas", deployment("replicas: 1\n  replicas: 2"));
    }

    @Test
    void aKindTheseManifestsDoNotDeployIsRefused() {
        assertRefused("apps/v1/StatefulSet", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: a}\n");
        assertRefused("apps/v1beta1/Deployment", "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: a}\n");
    }

    private static String deployment(String spec) {
        return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  " + spec + "\n";
    }

    private void assertRefused(String named, String yaml) {
        InvalidManifest e = assertThrows(InvalidManifest.class, () -> {
            for (JsonNode doc : StrictManifests.documents(yaml)) {
                strict.read(doc, "case");
            }
        });
        assertTrue(e.getMessage().contains(named), "the refusal names " + named + ": " + e.getMessage());
    }
}
