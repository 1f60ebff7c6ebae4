package io.rdmakv.server.config;

import io.rdmakv.server.store.Durability;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerConfigBuilderTest
{
    @Test
    void shouldBuildTheSameConfigurationAsTheEquivalentProperties()
    {
        final ServerConfig typed = ServerConfig.builder()
            .nodeId(3).dataDir(Path.of("/tmp/x")).durability(Durability.FSYNC).poolSize(16L << 20).dataPort(0)
            .controlPort(0).maxValueBytes(4096).secret("s3cret").transportProperty("tcp.noDelay", "true").build();
        final Properties p = new Properties();
        p.setProperty("node.id", "3");
        p.setProperty("data.dir", "/tmp/x");
        p.setProperty("durability", "fsync");
        p.setProperty("pool.size", "16MiB");
        p.setProperty("limits.maxValueBytes", "4096");
        p.setProperty("auth.secret", "s3cret");
        p.setProperty("tcp.noDelay", "true");
        final ServerConfig parsed = ServerConfig.from(p, Map.of("data.port", "0", "control.port", "0"));
        assertEquals(parsed.nodeId(), typed.nodeId());
        assertEquals(parsed.dataDir(), typed.dataDir());
        assertEquals(parsed.durability(), typed.durability());
        assertEquals(parsed.poolSize(), typed.poolSize());
        assertEquals(parsed.maxValueBytes(), typed.maxValueBytes());
        assertEquals(parsed.maxMessageBytes(), typed.maxMessageBytes());
        assertEquals(parsed.dataPort(), typed.dataPort());
        assertTrue(typed.security().requiresCredential());
        assertEquals(Map.of("tcp.noDelay", "true"), typed.transportProperties());
    }

    @Test
    void shouldValidateOnBuildWithThePropertiesMessages()
    {
        final ConfigException ex = assertThrows(ConfigException.class,
            () -> ServerConfig.builder().poolSize(4097).build());
        assertTrue(ex.getMessage().contains("pool.size"), ex.getMessage());
        assertThrows(ConfigException.class, () -> ServerConfig.builder().set("no.such.setting", "1"));
        assertThrows(ConfigException.class, () -> ServerConfig.builder().transportProperty("pool.size", "1"));
    }

    @Test
    void shouldChangeACopyThroughToBuilderAndClearBackToTheDefault()
    {
        final ServerConfig base = ServerConfig.builder().secret("a").maxKeyBytes(100).build();
        final ServerConfig changed = base.toBuilder().secret(null).durability(Durability.FSYNC).build();
        assertEquals(100, changed.maxKeyBytes());
        assertFalse(changed.security().requiresCredential());
        assertEquals(Durability.FSYNC, changed.durability());
        assertEquals(Durability.DEFAULT, base.durability());
    }
}
