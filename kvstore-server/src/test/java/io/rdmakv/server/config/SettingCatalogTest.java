package io.rdmakv.server.config;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every setting is declared once, listed once, and reads and checks its own value. */
class SettingCatalogTest
{
    private static final List<Class<?>> CATALOGUES = List.of(NodeKeys.class, PoolKeys.class, NetworkKeys.class,
        LimitKeys.class, SecurityKeys.class, ClusterKeys.class, RespKeys.class);

    @Test
    void shouldListEveryDeclarationOnceAndNothingElse() throws Exception
    {
        final List<Setting<?>> declared = new ArrayList<>();
        for (final Class<?> catalogue : CATALOGUES)
        {
            for (final Field f : catalogue.getDeclaredFields())
            {
                if (f.getType() == Setting.class && Modifier.isStatic(f.getModifiers()))
                {
                    assertTrue(Modifier.isPublic(f.getModifiers()) && Modifier.isFinal(f.getModifiers()), f.toString());
                    declared.add((Setting<?>)f.get(null));
                }
            }
        }
        assertEquals(Set.copyOf(declared), Set.copyOf(SettingCatalog.ALL), "a declaration missing from ALL");
        assertEquals(declared.size(), SettingCatalog.ALL.size(), "a declaration listed twice");
        final Set<String> names = new HashSet<>();
        SettingCatalog.ALL.forEach(s -> assertTrue(names.add(s.name()), "declared twice: " + s.name()));
        assertEquals(List.copyOf(ServerConfig.KNOWN.keySet()),
            SettingCatalog.ALL.stream().map(Setting::name).toList(), "KNOWN is the catalogue, in its order");
        for (final Setting<?> s : SettingCatalog.ALL)
        {
            assertEquals(s.defaultValue(), ServerConfig.KNOWN.get(s.name()), s.name());
            assertFalse(s.description().isBlank(), s.name() + " has no meaning");
            assertFalse(s.type().isBlank(), s.name() + " has no type");
            assertTrue(SettingCatalog.find(s.name()) == s, s.name());
        }
    }

    @Test
    void shouldReadEveryDefaultAsAValidValueAndNothingWithoutOne()
    {
        for (final Setting<?> s : SettingCatalog.ALL)
        {
            if (s.defaultValue() == null)
            {
                assertNull(s.get(Map.of()), s.name());
            }
            else
            {
                assertNotNull(s.get(Map.of()), s.name() + "=" + s.defaultValue());
            }
        }
    }

    @Test
    void shouldRefuseEveryWholeNumberJustOutsideItsBoundsNamingTheSettingTheValueAndTheRange()
    {
        int checked = 0;
        for (final Setting<?> s : SettingCatalog.ALL)
        {
            final String[] bounds = s.allowed().split(" to ");
            if (bounds.length != 2 || !bounds[0].matches("-?\\d+") || !bounds[1].matches("-?\\d+"))
            {
                continue;
            }
            final long min = Long.parseLong(bounds[0]);
            final long max = Long.parseLong(bounds[1]);
            for (final long bad : new long[] {min - 1, max + 1})
            {
                final ConfigException ex = assertThrows(ConfigException.class,
                    () -> s.get(Map.of(s.name(), Long.toString(bad))), s.name() + "=" + bad);
                assertEquals(s.name() + " must be between " + min + " and " + max + ": " + bad, ex.getMessage());
            }
            assertEquals((int)min, s.get(Map.of(s.name(), Long.toString(min))), s.name());
            assertEquals((int)max, s.get(Map.of(s.name(), " " + max + " ")), s.name());
            final ConfigException word = assertThrows(ConfigException.class, () -> s.get(Map.of(s.name(), "many")));
            assertEquals(s.name() + " must be a whole number: 'many'", word.getMessage());
            checked++;
        }
        assertTrue(checked >= 30, "whole-number settings checked: " + checked);
    }

    @Test
    void shouldCheckASizeItsRangeAndItsOwnRuleWithOneMessageEach()
    {
        assertEquals("1MiB to 1TiB, a multiple of 4096 bytes (a page)", PoolKeys.SIZE.allowed());
        assertEquals(2L << 20, PoolKeys.SIZE.get(Map.of("pool.size", "2MiB")));
        assertEquals("pool.size must be between 1048576 and 1099511627776 bytes: 512KiB",
            assertThrows(ConfigException.class, () -> PoolKeys.SIZE.get(Map.of("pool.size", "512KiB"))).getMessage());
        assertEquals("pool.size must be a multiple of 4096 bytes (a page): 1048577",
            assertThrows(ConfigException.class, () -> PoolKeys.SIZE.get(Map.of("pool.size", "1048577"))).getMessage());
        assertEquals("pool.partitionSize must be a power of two: 196608", assertThrows(ConfigException.class,
            () -> PoolKeys.PARTITION_SIZE.get(Map.of("pool.partitionSize", "192KiB"))).getMessage());
        assertEquals("pool.hugePages: invalid value 'sometimes' (must be NONE, TRANSPARENT or EXPLICIT)",
            assertThrows(ConfigException.class,
                () -> PoolKeys.HUGE_PAGES.get(Map.of("pool.hugePages", "sometimes"))).getMessage());
        assertEquals("TRANSPARENT", PoolKeys.HUGE_PAGES.get(Map.of("pool.hugePages", " transparent")));
        assertEquals("cluster.maxClockDrift must be between 1.0 and 10.0: 0.5", assertThrows(ConfigException.class,
            () -> ClusterKeys.MAX_CLOCK_DRIFT.get(Map.of("cluster.maxClockDrift", "0.5"))).getMessage());
        assertEquals("pool.scribbleRetired must be true or false: 'yes'", assertThrows(ConfigException.class,
            () -> PoolKeys.SCRIBBLE_RETIRED.get(Map.of("pool.scribbleRetired", "yes"))).getMessage());
    }

    @Test
    void shouldRefuseAValueBeyondABoundDerivedFromAnotherSetting()
    {
        assertEquals("limits.maxValueBytes must be between 0 and " + (ServerConfig.FORMAT_MAX_KEY_PLUS_VALUE - 1024) +
            ": 2097000", assertThrows(ConfigException.class, () -> ServerConfig.from(new Properties(),
                Map.of("limits.maxValueBytes", "2097000"))).getMessage());
        final int least = 1024 + (1 << 20) + ServerConfig.MESSAGE_OVERHEAD_BYTES;
        assertEquals("limits.maxMessageBytes must be between " + least + " and " + Integer.MAX_VALUE + ": 4096",
            assertThrows(ConfigException.class, () -> ServerConfig.from(new Properties(),
                Map.of("limits.maxMessageBytes", "4096"))).getMessage());
        assertEquals(least + 1, ServerConfig.from(new Properties(),
            Map.of("limits.maxMessageBytes", Integer.toString(least + 1))).maxMessageBytes());
    }

    @Test
    void shouldRefuseAnUnknownNameListingTheKnownOnesAndPassTransportPropertiesThrough()
    {
        final ConfigException ex = assertThrows(ConfigException.class, () -> SettingCatalog.checkName("pool.sise"));
        assertTrue(ex.getMessage().startsWith("unknown setting 'pool.sise'; known: [node.id, "), ex.getMessage());
        assertTrue(ex.getMessage().endsWith(" and tcp.*, verbs.*, shm.*"), ex.getMessage());
        assertEquals("verbs.sendDepth", SettingCatalog.checkName("verbs.sendDepth"));
        assertNull(SettingCatalog.find("verbs.sendDepth"));
    }

    @Test
    void shouldSetThroughADeclarationAsThroughItsName()
    {
        final ServerConfig byDeclaration = ServerConfig.builder().set(RespKeys.PORT, "6390")
            .set(NodeKeys.REPLICATION_TIMEOUT_MS, "2500").build();
        assertEquals(6390, byDeclaration.resp().port());
        assertEquals(2500, byDeclaration.replicationTimeoutMillis());
        assertEquals(0, byDeclaration.toBuilder().clear(RespKeys.PORT).build().resp().port(), "back to the default");
    }
}
