package dev.outbox.deploy;

import dev.outbox.config.Settings;
import dev.outbox.deploy.ManifestFiles.Document;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Deployments an overlay renders, each with the environment its process would see: the
 * ConfigMaps it takes whole, its own variables, the example Secret's placeholder for each secret
 * it references (the real values are the operator's), and a pod's name where it asks for one.
 */
final class Workloads {
    private Workloads() {}

    /** One Deployment of an overlay and what runs in it. */
    record Workload(
            String overlay, Deployment deployment, Container container, Map<String, String> env, int maxReplicas) {
        String name() {
            return deployment.getMetadata().getName();
        }

        OutboxProcess process() {
            return OutboxProcess.ofImage(container.getImage());
        }

        Settings settings() {
            return new Settings(env);
        }

        /** Pods the Deployment may run at once during a rollout at its largest: its maximum and the surge. */
        int podsDuringARollout() {
            IntOrString surge =
                    deployment.getSpec().getStrategy().getRollingUpdate().getMaxSurge();
            int extra = surge.getIntVal() != null
                    ? surge.getIntVal()
                    : (int) Math.ceil(
                            maxReplicas * Integer.parseInt(surge.getStrVal().replace("%", "")) / 100.0);
            return maxReplicas + extra;
        }

        /** The port number a probe or annotation names, by number or by the container port's name. */
        int port(IntOrString port) {
            if (port.getIntVal() != null) {
                return port.getIntVal();
            }
            return container.getPorts().stream()
                    .filter(p -> port.getStrVal().equals(p.getName()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(name() + " has no port named " + port.getStrVal()))
                    .getContainerPort();
        }

        Probe readiness() {
            return container.getReadinessProbe();
        }

        Probe liveness() {
            return container.getLivenessProbe();
        }

        Probe startup() {
            return container.getStartupProbe();
        }

        /** The preStop sleep, 0 without one. */
        long preStopSleepSeconds() {
            var lifecycle = container.getLifecycle();
            if (lifecycle == null
                    || lifecycle.getPreStop() == null
                    || lifecycle.getPreStop().getSleep() == null) {
                return 0;
            }
            return lifecycle.getPreStop().getSleep().getSeconds();
        }

        long gracePeriodSeconds() {
            Long grace = deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
            return grace == null ? 30 : grace;
        }

        @Override
        public String toString() {
            return overlay + "/" + name();
        }
    }

    /** Every Deployment each overlay renders; skipped, or failed under OUTBOX_REQUIRE_KUSTOMIZE=1, without kubectl. */
    static List<Workload> all() {
        List<Workload> out = new ArrayList<>();
        for (Path overlay : ManifestFiles.overlays()) {
            out.addAll(of(overlay));
        }
        return out;
    }

    static List<Workload> of(Path overlay) {
        StrictManifests strict = StrictManifests.strict();
        List<HasMetadata> objects = new ArrayList<>();
        for (Document d : Kustomize.render(overlay)) {
            objects.add(strict.read(d.tree(), d.where()));
        }
        Secret example = (Secret) strict.read(
                ManifestFiles.read(ManifestFiles.SECRET_EXAMPLE).get(0).tree(), "secret.example.yaml");
        List<Workload> out = new ArrayList<>();
        for (HasMetadata o : objects) {
            if (o instanceof Deployment d) {
                Container c =
                        d.getSpec().getTemplate().getSpec().getContainers().get(0);
                out.add(new Workload(
                        overlay.getFileName().toString(), d, c, env(d, c, objects, example), maxReplicas(d, objects)));
            }
        }
        return out;
    }

    private static Map<String, String> env(Deployment d, Container c, List<HasMetadata> objects, Secret example) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvFromSource from : c.getEnvFrom()) {
            String name = from.getConfigMapRef().getName();
            ConfigMap map = objects.stream()
                    .filter(o ->
                            o instanceof ConfigMap && o.getMetadata().getName().equals(name))
                    .map(ConfigMap.class::cast)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(d.getMetadata().getName() + " takes ConfigMap " + name
                            + ", which the overlay does not make"));
            env.putAll(map.getData());
        }
        // a variable of the container's own wins over one of the same name from a ConfigMap
        for (EnvVar v : c.getEnv()) {
            if (v.getValueFrom() == null) {
                env.put(v.getName(), v.getValue());
            } else if (v.getValueFrom().getSecretKeyRef() != null) {
                String key = v.getValueFrom().getSecretKeyRef().getKey();
                String value = example.getStringData().get(key);
                if (value == null
                        && !Boolean.TRUE.equals(
                                v.getValueFrom().getSecretKeyRef().getOptional())) {
                    throw new AssertionError(d.getMetadata().getName() + " needs key " + key
                            + " of the Secret, which secret.example.yaml does not show");
                }
                if (value != null) {
                    env.put(v.getName(), value);
                }
            } else if (v.getValueFrom().getFieldRef() != null) {
                env.put(v.getName(), d.getMetadata().getName() + "-5d8f7c9b4-x2k7q");
            }
        }
        return env;
    }

    private static int maxReplicas(Deployment d, List<HasMetadata> objects) {
        for (HasMetadata o : objects) {
            if (o instanceof HorizontalPodAutoscaler hpa
                    && hpa.getSpec()
                            .getScaleTargetRef()
                            .getName()
                            .equals(d.getMetadata().getName())) {
                return hpa.getSpec().getMaxReplicas();
            }
        }
        Integer replicas = d.getSpec().getReplicas();
        return replicas == null ? 1 : replicas;
    }
}
