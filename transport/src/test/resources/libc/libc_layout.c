/*
 * Prints the libc constants and the struct pollfd layout that io.rdmakv.transport.libc.LibCLayout declares, as
 * "name value" lines. LibCLayoutTest compiles this and compares each line with the Java constants.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

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
    VAL(F_DUPFD_CLOEXEC);
    VAL(O_NONBLOCK);
    VAL(EAGAIN);
    VAL(EINTR);
    VAL(ENOENT);
    VAL(EADDRINUSE);
    VAL(ECONNREFUSED);
    VAL(PROT_READ);
    VAL(PROT_WRITE);
    VAL(MAP_SHARED);
    VAL(MAP_FAILED);
    VAL(MFD_CLOEXEC);
    VAL(O_RDONLY);
    VAL(O_RDWR);
    VAL(O_CLOEXEC);
    VAL(AF_UNIX);
    VAL(SOCK_SEQPACKET);
    VAL(SOCK_NONBLOCK);
    VAL(SOCK_CLOEXEC);
    VAL(SOL_SOCKET);
    VAL(SCM_RIGHTS);
    VAL(MSG_DONTWAIT);
    VAL(MSG_NOSIGNAL);
    VAL(MSG_CMSG_CLOEXEC);
    VAL(EPOLL_CLOEXEC);
    VAL(EPOLL_CTL_ADD);
    VAL(EPOLL_CTL_DEL);
    VAL(EPOLLIN);
    printf("sizeof.epoll_event %zu\n", sizeof(struct epoll_event));
    return 0;
}
