package io.rdmakv.ycsb;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The rdmakv binding against a real node (RocksDB, pool, TCP transport, control plane) started in-process. */
@Timeout(60)
class RdmakvClientAgainstNodeTest
{
    private static final String TABLE = "usertable";

    @TempDir
    Path dir;

    private static KvServer startNode(final Path dir)
    {
        final Map<String, String> m = new HashMap<>();
        m.put("data.dir", dir.toString());
        m.put("transport", "tcp");
        m.put("host", "127.0.0.1");
        m.put("control.port", "0");
        m.put("data.port", "0");
        m.put("pool.size", "8MiB");
        m.put("pool.pin", "OFF");
        return KvServer.start(ServerConfig.from(new Properties(), m));
    }

    private static DB binding(final KvServer node, final String... extra) throws DBException
    {
        final Properties p = new Properties();
        p.setProperty(RdmakvClient.SEED, "127.0.0.1:" + node.controlAddress().getPort());
        p.setProperty(RdmakvClient.TRANSPORT, "tcp");
        for (int i = 0; i < extra.length; i += 2)
        {
            p.setProperty(extra[i], extra[i + 1]);
        }
        final DB db = new RdmakvClient();
        db.setProperties(p);
        db.init();
        return db;
    }

    private static Map<String, ByteIterator> fields(final String... nameValues)
    {
        final Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2)
        {
            m.put(nameValues[i], new StringByteIterator(nameValues[i + 1]));
        }
        return m;
    }

    private static Map<String, String> read(final DB db, final String key, final Set<String> wanted)
    {
        final Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, db.read(TABLE, key, wanted, result));
        final Map<String, String> m = new HashMap<>();
        result.forEach((k, v) -> m.put(k, v.toString()));
        return m;
    }

    @Test
    void shouldInsertReadUpdateAndDeleteThroughOneSharedClient() throws DBException
    {
        try (KvServer node = startNode(dir))
        {
            final DB first = binding(node);
            final DB second = binding(node);
            assertEquals(2, RdmakvClient.references(), "two YCSB threads, one client");

            assertEquals(Status.OK, first.insert(TABLE, "user1", fields("field0", "a", "field1", "b", "field2", "c")));
            assertEquals(Map.of("field0", "a", "field1", "b", "field2", "c"), read(second, "user1", null));
            assertEquals(Map.of("field1", "b"), read(second, "user1", Set.of("field1")));

            assertEquals(Status.OK, second.update(TABLE, "user1", fields("field1", "B")));
            assertEquals(Map.of("field0", "a", "field1", "B", "field2", "c"), read(first, "user1", null),
                "an update merges into the record");

            assertEquals(Status.OK, first.delete(TABLE, "user1"));
            assertEquals(Status.NOT_FOUND, first.read(TABLE, "user1", null, new HashMap<>()));
            assertEquals(Status.NOT_FOUND, first.delete(TABLE, "user1"));
            assertEquals(Status.NOT_IMPLEMENTED, first.scan(TABLE, "user0", 10, null, new Vector<>()));

            first.cleanup();
            assertEquals(1, RdmakvClient.references());
            assertEquals(Status.OK, second.update(TABLE, "user2", fields("field3", "d")),
                "the client stays open for the other thread; an update of no record writes its fields");
            assertEquals(Map.of("field3", "d"), read(second, "user2", null));
            second.cleanup();
            assertEquals(0, RdmakvClient.references(), "the last cleanup closes the client");
        }
    }

    @Test
    void shouldOverwriteWhenAskedTo() throws DBException
    {
        try (KvServer node = startNode(dir))
        {
            final DB db = binding(node, RecordDb.UPDATE_MODE, "overwrite");
            try
            {
                assertEquals(Status.OK, db.insert(TABLE, "user1", fields("field0", "a", "field1", "b")));
                assertEquals(Status.OK, db.update(TABLE, "user1", fields("field1", "B")));
                assertEquals(Map.of("field1", "B"), read(db, "user1", null));
            }
            finally
            {
                db.cleanup();
            }
        }
    }

    @Test
    void shouldRefuseADifferentClientWhileOneIsShared() throws DBException
    {
        try (KvServer node = startNode(dir))
        {
            final DB db = binding(node);
            try
            {
                assertThrows(DBException.class, () -> binding(node, RdmakvClient.REQUEST_TIMEOUT_MS, "1234"));
                assertEquals(1, RdmakvClient.references());
            }
            finally
            {
                db.cleanup();
            }
            assertEquals(0, RdmakvClient.references());
        }
    }
}
