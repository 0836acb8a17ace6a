package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * {@code bom/pom.xml} is what a service imports; it has no parent (a BOM's parent would hand the
 * service the build's test tools), so its versions are written twice. Here they must be the
 * build's: every library the BOM pins at the version the root pom manages, and every artifact of
 * the product in it at the build's own version.
 */
class BomTest {
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

    /** One managed dependency: {@code group:artifact:type:scope} and its version, properties resolved. */
    private record Managed(String key, String version) {}

    @Test
    void everyVersionTheBomPinsIsTheOneTheBuildTested() throws Exception {
        Map<String, String> build = managed(ROOT.resolve("pom.xml"));
        Map<String, String> bom = managed(ROOT.resolve("bom/pom.xml"));

        List<String> differ = new ArrayList<>();
        bom.forEach((key, version) -> {
            if (!version.equals(build.get(key))) {
                differ.add(key + ": the BOM says " + version + ", the build " + build.get(key));
            }
        });
        assertEquals(List.of(), differ);
        assertTrue(bom.size() > 20, "the BOM manages the product and its libraries: " + bom.keySet());
    }

    @Test
    void everyArtifactOfTheProductIsInTheBomAtTheBuildsVersion() throws Exception {
        Map<String, String> bom = managed(ROOT.resolve("bom/pom.xml"));
        String version = text(document(ROOT.resolve("pom.xml")).getDocumentElement(), "version");

        TreeSet<String> product = new TreeSet<>(LibrariesCarryNoLoggingConfigurationTest.ARTIFACTS.keySet());
        product.add("outbox-process");
        product.remove("outbox-api"); // the order sample's service: no service builds on it
        List<String> missing = new ArrayList<>();
        for (String artifact : product) {
            String key = "dev.outbox:" + artifact + ":jar:compile";
            if (!version.equals(bom.get(key))) {
                missing.add(artifact + " (" + bom.get(key) + ")");
            }
        }
        assertEquals(
                List.of(), missing, "product artifacts missing from the BOM, or at another version than " + version);
        assertEquals(version, text(document(ROOT.resolve("bom/pom.xml")).getDocumentElement(), "version"));
    }

    private static Map<String, String> managed(Path pom) throws Exception {
        Element project = document(pom).getDocumentElement();
        Map<String, String> properties = new HashMap<>();
        properties.put("project.version", text(project, "version"));
        Element props = child(project, "properties");
        if (props != null) {
            for (Node n = props.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e) {
                    properties.put(e.getTagName(), e.getTextContent().trim());
                }
            }
        }
        Map<String, String> managed = new LinkedHashMap<>();
        Element dependencies = child(child(project, "dependencyManagement"), "dependencies");
        NodeList list = dependencies.getElementsByTagName("dependency");
        for (int i = 0; i < list.getLength(); i++) {
            Element d = (Element) list.item(i);
            if (d.getParentNode() != dependencies) {
                continue;
            }
            String type = text(d, "type") == null ? "jar" : text(d, "type");
            String scope = text(d, "scope") == null ? "compile" : text(d, "scope");
            String key = text(d, "groupId") + ":" + text(d, "artifactId") + ":" + type + ":" + scope;
            managed.put(key, resolve(text(d, "version"), properties));
        }
        return managed;
    }

    private static String resolve(String value, Map<String, String> properties) {
        Matcher m = PROPERTY.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String v = properties.get(m.group(1));
            if (v == null) {
                throw new AssertionError("no property " + m.group(1));
            }
            m.appendReplacement(out, Matcher.quoteReplacement(resolve(v, properties)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Document document(Path pom) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(pom.toFile());
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }
}
