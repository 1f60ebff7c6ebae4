/**
 * Redis clients against a node's RESP port ({@code resp.port}), end to end with real node processes: Jedis in this
 * JVM, and Debian's {@code redis-cli} as a child process where it is installed. Like the e2e suites, these tests
 * drive nodes only through their processes and ports, never through server classes.
 */
package io.rdmakv.it.resp;
