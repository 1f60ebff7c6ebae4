/*
 * Prints the libc constants and the struct pollfd layout that io.rdmakv.transport.event.LibCLayout declares, as
 * "name value" lines. LibCLayoutTest compiles this and compares each line with the Java constants.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/eventfd.h>

#define VAL(n) printf("%s %ld\n", #n, (long)(n))

int main(void)
{
    printf("sizeof.pollfd %zu\n", sizeof(struct pollfd));
    printf("pollfd.fd %zu\n", offsetof(struct pollfd, fd));
    printf("pollfd.events %zu\n", offsetof(struct pollfd, events));
    printf("pollfd.revents %zu\n", offsetof(struct pollfd, revents));
    VAL(POLLIN);
    VAL(POLLERR);
    VAL(POLLHUP);
    VAL(POLLNVAL);
    VAL(EFD_NONBLOCK);
    VAL(EFD_CLOEXEC);
    VAL(F_GETFL);
    VAL(F_SETFL);
    VAL(O_NONBLOCK);
    VAL(EAGAIN);
    VAL(EINTR);
    return 0;
}
