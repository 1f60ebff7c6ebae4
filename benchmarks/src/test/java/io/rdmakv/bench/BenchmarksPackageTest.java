package io.rdmakv.bench;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmarks' own layering rule (the production modules' rules are integration-tests' {@code LayeringTest}):
 * every class this module builds lives under {@code io.rdmakv.bench}.
 */
class BenchmarksPackageTest
{
    @Test
    void shouldDeclareOnlyBenchmarkPackages()
    {
        final JavaClasses built = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> location.contains("/benchmarks/target/classes/"))
            .importPackages("io.rdmakv");
        assertTrue(built.size() > 10, "benchmarks' classes found: " + built.size());
        classes().should().resideInAPackage("io.rdmakv.bench..")
            .because("a package belongs to one module: io.rdmakv.transport.* is the transport jar's, and a " +
                "benchmark declaring it would read as part of that jar")
            .check(built);
    }
}
