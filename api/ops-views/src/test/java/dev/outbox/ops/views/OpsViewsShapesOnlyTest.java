package dev.outbox.ops.views;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * outboxctl carries this module: the views are records of JDK types, Jackson's JSON and swagger's
 * annotations, nothing of the server (its build's enforcer rule refuses the jars, this the code).
 */
class OpsViewsShapesOnlyTest {
    private static final JavaClasses VIEWS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.outbox.ops.views");

    @Test
    void theViewsDependOnTheJdkJacksonAndSwaggersAnnotationsOnly() {
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "dev.outbox.ops.views..",
                        "java..",
                        "com.fasterxml.jackson.annotation..",
                        "com.fasterxml.jackson.databind",
                        "io.swagger.v3.oas.annotations..")
                .because("the CLI reads these shapes and must not carry the server")
                .check(VIEWS);
    }

    @Test
    void everyViewIsARecordWithoutBehaviour() {
        // a factory from a stored row belongs to the API (StoredViews), which knows the rows
        for (Class<?> holder : new Class<?>[] {OpsViews.class, OpsOverviewViews.class, OpsActionViews.class}) {
            for (Class<?> view : holder.getDeclaredClasses()) {
                assertTrue(view.isRecord(), view + " is a record");
                assertTrue(
                        Arrays.stream(view.getDeclaredMethods()).noneMatch(m -> Modifier.isStatic(m.getModifiers())),
                        view + " has no static factory");
            }
        }
    }
}
