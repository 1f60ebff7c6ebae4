package io.rdmakv.it.layering;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The main classes of rdmakv's production modules, as this test's class path holds them: each module's
 * {@code target/classes} (a reactor build up to {@code test}) or its thin jar (a build up to {@code package});
 * test classes and test jars are left out. Knows which module each class came from.
 */
final class ProductionClasses
{
    /** Module folder to the package every class of that module lives under. */
    static final Map<String, String> MODULE_PACKAGES = Map.of(
        "memory-pool", "io.rdmakv.pool",
        "protocol", "io.rdmakv.protocol",
        "transport", "io.rdmakv.transport",
        "kvstore-server", "io.rdmakv.server",
        "kvstore-client", "io.rdmakv.client",
        "cli", "io.rdmakv.cli");

    private static final Pattern CLASSES_DIR = Pattern.compile("/([a-z-]+)/target/classes/");
    private static final Pattern MODULE_JAR = Pattern.compile("/rdmakv-([a-z-]+?)-\\d[^/]*?(-tests)?\\.jar");

    private ProductionClasses()
    {
    }

    /**
     * Import every production class under {@code io.rdmakv}.
     *
     * @return the classes, with the JDK and libraries they refer to as stubs.
     */
    static JavaClasses importAll()
    {
        return new ClassFileImporter()
            .withImportOption(ProductionClasses::isProductionLocation)
            .importPackages("io.rdmakv");
    }

    /**
     * The module a class was read from.
     *
     * @param javaClass an imported class.
     * @return the module's folder name ({@code transport}, ...), empty when it came from none of them.
     */
    static Optional<String> moduleOf(final JavaClass javaClass)
    {
        return javaClass.getSource().flatMap(source -> moduleOf(source.getUri()));
    }

    private static boolean isProductionLocation(final Location location)
    {
        return moduleOf(location.asURI()).isPresent();
    }

    private static Optional<String> moduleOf(final URI uri)
    {
        final String text = uri.toString();
        final Matcher dir = CLASSES_DIR.matcher(text);
        if (dir.find() && MODULE_PACKAGES.containsKey(dir.group(1)))
        {
            return Optional.of(dir.group(1));
        }
        final Matcher jar = MODULE_JAR.matcher(text);
        if (jar.find() && jar.group(2) == null && MODULE_PACKAGES.containsKey(jar.group(1)))
        {
            return Optional.of(jar.group(1));
        }
        return Optional.empty();
    }
}
