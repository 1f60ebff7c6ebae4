/**
 * The transport conformance suite: abstract JUnit 5 tests every transport must pass (one subclass per transport,
 * as Netty's testsuite does). Shipped in the transport module's test-jar so transports living in other modules run
 * it too. Tests skip by capability with the reason printed. Must never depend on a concrete transport.
 */
package io.rdmakv.transport.conformance;
