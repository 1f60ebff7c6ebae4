/**
 * Users and roles against real node processes: SCRAM-SHA-256 logins, roles and key prefixes on the data path, the
 * control plane's ADMIN commands and RESP, the shared secret beside them, client certificates naming a user, and no
 * password or secret in any log.
 */
package io.rdmakv.it.auth;
