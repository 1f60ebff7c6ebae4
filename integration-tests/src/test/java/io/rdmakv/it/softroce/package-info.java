/**
 * Tests that run inside the SoftRoCE qemu guest (see {@code docker/softroce/README.md}), and host-side tests of the
 * harness scripts themselves.
 *
 * <p>Guest tests carry the JUnit tag {@value io.rdmakv.it.softroce.SoftRoceGuest#TAG}: the default build excludes
 * them, the Maven profile {@code softroce} runs them in the guest. Tests that must run as the unprivileged user with
 * a low memlock limit also carry {@value io.rdmakv.it.softroce.SoftRoceGuest#UNPRIVILEGED_TAG}.
 *
 * <p>Must never depend on: the transport, memory-pool or kvstore modules. This package proves the environment
 * (real verbs, rxe0, memlock enforcement) independently of the code under test, so a failure here points at the
 * guest and not at rdmakv.
 */
package io.rdmakv.it.softroce;
