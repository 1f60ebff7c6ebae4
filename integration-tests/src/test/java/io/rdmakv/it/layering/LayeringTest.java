package io.rdmakv.it.layering;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The layering the module READMEs and {@code docs/architecture.md} state, as ArchUnit rules over the main classes of
 * every production module (memory-pool, protocol, transport, kvstore-server, kvstore-client, cli). A change that
 * breaks one fails here with the offending classes and the rule's reason. Benchmarks check their own package
 * ({@code BenchmarksPackageTest}).
 */
class LayeringTest
{
    private static final String[] TRANSPORT_IMPLEMENTATIONS = {
        "io.rdmakv.transport.tcp..", "io.rdmakv.transport.verbs..", "io.rdmakv.transport.shm.."};
    private static final Pattern TRANSPORT_BY_NAME = Pattern.compile("io\\.rdmakv\\.transport\\.(tcp|verbs|shm)\\b");

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses()
    {
        production = ProductionClasses.importAll();
    }

    @Test
    void shouldImportEveryProductionModule()
    {
        final Map<String, Integer> perModule = new TreeMap<>();
        for (final JavaClass javaClass : production)
        {
            ProductionClasses.moduleOf(javaClass).ifPresent(module -> perModule.merge(module, 1, Integer::sum));
        }
        assertEquals(new TreeMap<>(ProductionClasses.MODULE_PACKAGES).keySet(), perModule.keySet(),
            "classes per module: " + perModule);
        perModule.forEach((module, count) -> assertTrue(count > 5, module + " has only " + count + " classes"));
    }

    @Test
    void shouldKeepTheClientOnTheTransportSpi()
    {
        noClasses().that().resideInAPackage("io.rdmakv.client..")
            .should().dependOnClassesThat().resideInAnyPackage(TRANSPORT_IMPLEMENTATIONS)
            .because("the client picks its transport through TransportSelector and sizes it through the SPI " +
                "(TransportConfig, TransportCapability); a transport added or removed must not touch it")
            .check(production);
        assertEquals(List.of(), SourceReferences.find("kvstore-client", "io/rdmakv/client", TRANSPORT_BY_NAME),
            "the client names a transport implementation (a constant such as VerbsTransportProvider.NAME is " +
            "inlined by javac, so the class files alone do not show it)");
    }

    @Test
    void shouldKeepTheServerOnTheTransportSpi()
    {
        noClasses().that().resideInAPackage("io.rdmakv.server..")
            .should().dependOnClassesThat().resideInAnyPackage(TRANSPORT_IMPLEMENTATIONS)
            .because("a node gets its transport from TransportSelector; its settings reach it as properties")
            .check(production);
        assertEquals(List.of(), SourceReferences.find("kvstore-server", "io/rdmakv/server", TRANSPORT_BY_NAME),
            "the server names a transport implementation");
    }

    @Test
    void shouldKeepTheTransportCoreFreeOfImplementations()
    {
        noClasses().that().resideInAnyPackage("io.rdmakv.transport", "io.rdmakv.transport.progress..",
                "io.rdmakv.transport.select..", "io.rdmakv.transport.base..", "io.rdmakv.transport.log..",
                "io.rdmakv.transport.event..", "io.rdmakv.transport.device..", "io.rdmakv.transport.libc..")
            .should().dependOnClassesThat().resideInAnyPackage(TRANSPORT_IMPLEMENTATIONS)
            .because("the SPI and the shared parts are what every transport builds on (as UCX's uct/base); " +
                "implementations are found through ServiceLoader, never named")
            .check(production);
    }

    @Test
    void shouldKeepTheSpiAtTheBottomOfTheTransport()
    {
        classes().that().resideInAPackage("io.rdmakv.transport")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.rdmakv.transport", "org.agrona..",
                "org.slf4j..", "")
            .because("the SPI (Endpoint, Worker, TransportProvider, ...) is what everything else in the transport " +
                "implements or drives: progress, selection and the transports depend on it, never the reverse")
            .check(production);
    }

    @Test
    void shouldKeepTransportImplementationsApart()
    {
        slices().matching("io.rdmakv.transport.(tcp|verbs|shm)..")
            .should().notDependOnEachOther()
            .because("each transport is a leaf on the shared parts, so it can ship or be left out on its own")
            .check(production);
    }

    @Test
    void shouldShipNoDoctorOrBenchmarkHelpersInTheTransport()
    {
        noClasses().that().resideInAPackage("io.rdmakv.transport..")
            .should().haveNameMatching("io\\.rdmakv\\.transport\\.(diag\\..*|.*Doctor.*|.*\\.Report[A-Z]\\w*|" +
                ".*\\.CommandRunner|.*\\.ProcessCpuTime)")
            .because("every embedder loads the transport jar; `rdmakv doctor` and the benchmarks' helpers live " +
                "where they are used (cli)")
            .check(production);
    }

    @Test
    void shouldBuildTheTransportOnItsOwnLibrariesOnly()
    {
        classes().that().resideInAPackage("io.rdmakv.transport..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "javax.net.ssl..",
                "io.rdmakv.transport..", "io.netty..", "com.sun.jna..", "org.agrona..", "org.slf4j..", "")
            .because("the transport is usable on its own: it knows nothing of keys, values, pools or the store, " +
                "and pulls in only Netty, JNA, Agrona and slf4j-api (and the JDK's TLS, javax.net.ssl)")
            .check(production);
    }

    @Test
    void shouldBuildTheMemoryPoolOnNothingAboveIt()
    {
        classes().that().resideInAPackage("io.rdmakv.pool..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.rdmakv.pool..", "com.sun.jna..",
                "org.agrona..", "org.slf4j..", "")
            .because("the pool knows no keys, values or transports: the server registers it, the client never " +
                "sees it")
            .check(production);
    }

    @Test
    void shouldBuildTheProtocolOnNothingAboveIt()
    {
        classes().that().resideInAPackage("io.rdmakv.protocol..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "javax.crypto..", "io.rdmakv.protocol..",
                "org.agrona..", "")
            .because("the writer (server) and the reader (client) share these bytes; they stay testable without " +
                "a transport, a pool, Netty, JNA or RocksDB (SCRAM, protocol.auth, uses the JDK's javax.crypto)")
            .check(production);
    }

    @Test
    void shouldKeepTheClientOffTheServerSide()
    {
        noClasses().that().resideInAPackage("io.rdmakv.client..")
            .should().dependOnClassesThat().resideInAnyPackage("io.rdmakv.server..", "io.rdmakv.pool..",
                "io.rdmakv.cli..", "org.rocksdb..")
            .because("an application embeds the client alone: no server, pool, RocksDB or launcher classes")
            .check(production);
    }

    @Test
    void shouldKeepTheServerOffTheClientAndTheLauncher()
    {
        noClasses().that().resideInAPackage("io.rdmakv.server..")
            .should().dependOnClassesThat().resideInAnyPackage("io.rdmakv.client..", "io.rdmakv.cli..")
            .because("a node runs without the client and without the launcher (Docker, ServerProcess, embedders)")
            .check(production);
    }

    @Test
    void shouldKeepCommandLineCodeInTheLauncherAndTheServersEntryPoint()
    {
        noClasses().that().resideOutsideOfPackages("io.rdmakv.cli..", "io.rdmakv.server.cli..")
            .should().dependOnClassesThat().resideInAPackage("picocli..")
            .because("command-line code lives in cli/ (the rdmakv launcher, client commands, bench, doctor, demo, " +
                "cluster admin, backup and restore); kvstore-server keeps only server.cli: the commands that start " +
                "a node or work on its data directory offline (server, load), which need the server's internals " +
                "and run from the server module alone")
            .check(production);
        noClasses().that().resideInAPackage("io.rdmakv.server..").and().resideOutsideOfPackage("io.rdmakv.server.cli..")
            .should().dependOnClassesThat().resideInAPackage("io.rdmakv.server.cli..")
            .because("server.cli is an entry point on top of the node; an embedder starts KvServer without it")
            .check(production);
    }

    @Test
    void shouldKeepTheServersPackagesFreeOfCycles()
    {
        slices().matching("io.rdmakv.server.(*)..").should().beFreeOfCycles()
            .because("each package of the node builds on the ones below it; a cycle (replication and the handler " +
                "calling into each other) makes one request cross back and forth between them")
            .check(production);
        noClasses().that().resideInAPackage("io.rdmakv.server.handler..")
            .should().dependOnClassesThat().resideInAPackage("io.rdmakv.server.replication..")
            .because("the request handler knows replication only through the ReplicaInbox and the finished " +
                "WritePath the node hands it")
            .check(production);
    }

    /**
     * Late-wiring setters still on main, each with why it is not a constructor argument yet; the rule holds every
     * other method, so the list only shrinks.
     */
    private static final Set<String> KNOWN_LATE_SETTERS = Set.of(
        // The request thread runs the handler whose write paths need its wake-up: the thread is started after them.
        "io.rdmakv.server.RequestThreadWakeUp.bindTo(io.rdmakv.transport.WorkerProgress)",
        // The grant reads the cluster view, which starts once the ports are bound, after the request thread.
        "io.rdmakv.server.handler.ResponseSender.readLease(io.rdmakv.server.cluster.ReadLeaseGrant)");

    @Test
    void shouldCompleteNoServerObjectAfterConstruction()
    {
        methods().that().areDeclaredInClassesThat().resideInAPackage("io.rdmakv.server..")
            .and(DescribedPredicate.describe("are not known late setters",
                method -> !KNOWN_LATE_SETTERS.contains(method.getFullName())))
            .should(notBeLateWiringSetters())
            .because("a node's parts get what they need in their constructors (a context, narrow interfaces), " +
                "never from a setter that completes them later")
            .check(production);
    }

    @Test
    void shouldHashARequestsKeyOnceWhereItIsDecoded()
    {
        noClasses().that().resideInAnyPackage("io.rdmakv.server.handler..", "io.rdmakv.server.replication..",
                "io.rdmakv.client..")
            .should().callMethodWhere(hashingAKey())
            .because("a request's key is hashed once, into a HashedKey (at decode on the node, a REPLICATE's on " +
                "arrival, at the API call in the client), and every step after reads its hash and hash slot")
            .check(production);
    }

    /** A computation of a key's index hash or hash slot from its bytes. */
    private static DescribedPredicate<JavaMethodCall> hashingAKey()
    {
        return new DescribedPredicate<>("KeyHash.hash, KeyHash.clusterSlot or StoreKeys.slotOf")
        {
            @Override
            public boolean test(final JavaMethodCall call)
            {
                final String owner = call.getTargetOwner().getName();
                final String name = call.getName();
                return owner.equals("io.rdmakv.protocol.layout.KeyHash") &&
                    (name.equals("hash") || name.equals("clusterSlot")) ||
                    owner.equals("io.rdmakv.server.store.StoreKeys") && name.equals("slotOf");
            }
        };
    }

    @Test
    void shouldKeepBenchmarksAndTestsOutOfProduction()
    {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.rdmakv.bench..", "io.rdmakv.it..",
                "org.openjdk.jmh..", "org.junit..")
            .because("benchmarks and tests build on the product, never the other way round")
            .check(production);
    }

    @Test
    void shouldDeclarePackagesOfTheirOwnModule()
    {
        classes().should(resideUnderTheirModulesPackage())
            .because("a package belongs to one module, so a class's name says which jar carries it")
            .check(production);
    }

    /**
     * A late-wiring setter: an instance method named {@code wireX}, {@code setX}, {@code xWith} or {@code bindX}, or
     * after the type it takes ({@code admin(AdminCommands)}), that takes one argument, returns nothing and stores into
     * a field of its own class.
     */
    private static ArchCondition<JavaMethod> notBeLateWiringSetters()
    {
        final Pattern setterName = Pattern.compile("wire[A-Z].*|set[A-Z].*|bind[A-Z].*|[a-z][A-Za-z]*With");
        return new ArchCondition<>("not be setters that complete an object after construction")
        {
            @Override
            public void check(final JavaMethod method, final ConditionEvents events)
            {
                final String name = method.getName();
                final boolean named = setterName.matcher(name).matches() || method.getRawParameterTypes().size() == 1 &&
                    method.getRawParameterTypes().get(0).getSimpleName().toLowerCase(java.util.Locale.ROOT)
                        .startsWith(name.toLowerCase(java.util.Locale.ROOT));
                final boolean setter = named &&
                    !method.getModifiers().contains(JavaModifier.STATIC) &&
                    method.getRawParameterTypes().size() == 1 &&
                    method.getRawReturnType().getName().equals("void") &&
                    method.getFieldAccesses().stream().anyMatch(access ->
                        access.getAccessType() == JavaFieldAccess.AccessType.SET &&
                        access.getTargetOwner().equals(method.getOwner()));
                events.add(new SimpleConditionEvent(method, !setter, method.getFullName() +
                    (setter ? " completes its object after construction" : " is no late-wiring setter")));
            }
        };
    }

    private static ArchCondition<JavaClass> resideUnderTheirModulesPackage()
    {
        return new ArchCondition<>("reside under the package of the module they are built in")
        {
            @Override
            public void check(final JavaClass javaClass, final ConditionEvents events)
            {
                final Optional<String> module = ProductionClasses.moduleOf(javaClass);
                final String expected = module.map(ProductionClasses.MODULE_PACKAGES::get).orElse("?");
                final String pkg = javaClass.getPackageName();
                final boolean ok = pkg.equals(expected) || pkg.startsWith(expected + ".");
                events.add(new SimpleConditionEvent(javaClass, ok, javaClass.getName() + " is built in module " +
                    module.orElse("?") + ", whose classes live under " + expected));
            }
        };
    }
}
