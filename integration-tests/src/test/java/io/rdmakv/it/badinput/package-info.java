/**
 * Malformed and hostile input against a running server process, on the control-plane port and on the data port,
 * with the expected reaction of each case stated (an error answer, or the connection closed) and proof that the
 * server keeps serving and loses nothing. Must never depend on server internals: bytes on sockets only.
 */
package io.rdmakv.it.badinput;
