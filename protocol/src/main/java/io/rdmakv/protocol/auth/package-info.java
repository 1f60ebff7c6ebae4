/**
 * Users, roles and SCRAM-SHA-256 (RFC 5802, RFC 7677), shared by the node (which verifies), the client (which proves)
 * and the launcher (which writes the users file): {@link io.rdmakv.protocol.auth.ScramCredential} (what a users file
 * keeps of a password: salt, iteration count, StoredKey, ServerKey), {@link io.rdmakv.protocol.auth.ScramClient},
 * {@link io.rdmakv.protocol.auth.ScramServer}, {@link io.rdmakv.protocol.auth.UsersFile} and
 * {@link io.rdmakv.protocol.auth.Role}. The JDK's crypto only ({@code javax.crypto}: PBKDF2WithHmacSHA256, HmacSHA256).
 */
package io.rdmakv.protocol.auth;
