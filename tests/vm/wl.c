// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl: the bench workload. One static program (no loader, no libc file
 * opens at startup) so that a traced run contains only the kernel calls
 * the subcommand asks for.
 *
 *   wl [-v] [--stop] CMD N ...
 *     openmiss N   open a missing file N times (each fails with ENOENT)
 *     forkmiss N   fork a child that starts a thread; each of the two
 *                  opens a missing file N times (-v: "forkmiss: parent P child C
 *                  thread T" on stderr); the parent only waits
 *     udp N        send N datagrams over loopback to a bound socket
 *     tcp N        loopback TCP connect, N sends of 64 bytes, receive all
 *     pipe N       write and read back 1 byte through a pipe N times
 *     read N       read /proc/version N times (open once, pread)
 *     readloop MS  pread /proc/version for MS milliseconds (0: until
 *                  SIGTERM); at each SIGUSR1 it prints "mark CALLS NS"
 *                  (calls made so far, CLOCK_MONOTONIC ns), at the end
 *                  "total CALLS": a tracer's count is checked against it
 *     getpid N     N getpid() system calls (no libc caching)
 *     mmap N       N anonymous private mappings of 64 KiB made, written
 *                  (page faults) and unmapped
 *     fault N      one 64 KiB mapping, N of its pages written (a page
 *                  fault each; N <= 16), unmapped
 *     mprotect N   a page made read-only and writable again, N times
 *     write N      pwrite 4 KiB at offset 0 of a file in /tmp, N times
 *     stat N       stat("/bin/wl") N times
 *     readdir N    read the entries of "/" N times (one descriptor)
 *     futex N      N FUTEX_WAKE calls on a word no one waits on
 *     kill N       SIGUSR2 to itself N times (a handler catches it)
 *     fork N       fork a child that exits at once and wait for it, N times
 *     pause N      wait for SIGUSR1, N times
 *     fifo N       open /tmp/bpfgraph-wl.fifo for reading N times (each open
 *                  waits in the kernel for a writer)
 *     sleep MS     sleep MS milliseconds
 *     timer N      arm a one-shot timerfd 1 ms ahead and read its expiry,
 *                  N times (one descriptor)
 *     execfail N   execveat() a file that is executable but of no known
 *                  format (/tmp/bpfgraph-wl.noexec, made at first): each
 *                  call tries the binary formats and fails, N times
 *     epoll N      epoll_wait() on a pipe with a byte in it (ready at
 *                  once), N times
 *     unix N       64 bytes sent and received back through a pair of
 *                  connected Unix stream sockets, N times
 *     fsops N      mkdir, rename and rmdir of a directory in /tmp, N times
 *     brk N        the heap grown by 64 KiB, its first page written, and
 *                  shrunk back, N times
 *     madvise N    a written page of a private mapping given back
 *                  (MADV_DONTNEED), N times
 *     poll N       poll() on a pipe with a byte in it, N times
 *     eventfd N    1 added to an eventfd and read back, N times
 *     socket N     a UDP socket made and closed, N times
 *     yield N      sched_yield(), N times
 *     getrandom N  16 random bytes, N times
 *     dup N        a descriptor duplicated and closed, N times
 *     pipe2 N      a pipe made and both ends closed, N times
 *     exec N       execve() of /bin/wl itself, N times in a row in the
 *                  same task: the commands after this one run in the
 *                  program the last exec started
 *     sendfile N   4 KiB of a file in /tmp sent into a pipe with
 *                  sendfile() and read back, N times
 *     splice N     4 KiB of a file in /tmp spliced into a pipe and read
 *                  back, N times
 *     inotify N    an inotify watch on /tmp added and removed, N times
 *     truncate N   a memfd grown to 64 KiB and truncated to 0, N times
 *     mremap N     a written 2-page mapping grown to 4 pages and shrunk
 *                  back with mremap(), N times
 *     mlock N      a written page locked and unlocked, N times
 *     thread N     a thread started and joined, N times
 *     sigmask N    SIGUSR1 blocked and unblocked, N times
 *     sigaction N  SIGUSR1's handler set, N times
 *     unlink N     a file in /tmp made and removed, N times
 *     fallocate N  64 KiB allocated to a file in /tmp and truncated away,
 *                  N times
 *     sysinfo N    sysinfo(), N times
 *     uname N      uname(), N times
 *     itimer N     an interval timer armed 60 s ahead and disarmed, N times
 *     prlimit N    RLIMIT_NOFILE read and set to itself, N times
 *     affinity N   the CPU affinity set to what it is, N times
 *     usleep US    sleep US microseconds
 *     procstat N   read /proc/self/stat N times (open once, pread)
 *     lock N       a POSIX write lock on a memfd's first byte taken and
 *                  released (fcntl F_SETLK), N times
 *     ptimer N     a POSIX timer made, armed 60 s ahead and deleted, N times
 *     msg N        a System V message sent and received back, N times
 *     socketpair N a pair of Unix stream sockets made and closed, N times
 *     chmod N      chmod("/tmp", 01777) (its mode already), N times
 *     shmfault N   a shared mapping of a memfd's page written (a page
 *                  fault each) and the page punched out again, N times
 *     ioctl N      FIONREAD on a pipe with a byte in it, N times
 *     sysfs N      read /sys/devices/system/cpu/online N times (open once)
 *     copyrange N  4 KiB of a file in /tmp copied into a memfd with
 *                  copy_file_range(), N times
 *     flock N      an exclusive flock() on a memfd taken and released, N times
 *     readlink N   readlink("/proc/self/exe"), N times
 *     access N     access("/bin/wl", X_OK), N times
 *     xattr N      getxattr() of a user attribute /tmp has not, N times
 *     prctl N      the task's name read and set to itself, N times
 *     rusage N     getrusage(RUSAGE_SELF), N times
 *     nullwrite N  64 bytes written to /dev/null, N times
 *     signalfd N   a signalfd for SIGUSR1 made and closed, N times
 *     pidfd N      a pidfd of the process itself opened and closed, N times
 *     bpfmap N     a one-slot BPF array made (bpf(2)) and closed, N times
 *     fdpass N     a descriptor passed over a Unix datagram pair (SCM_RIGHTS)
 *                  and the copy closed, N times
 *     sockopt N    SO_RCVBUF set on a UDP socket, N times
 *     procdir N    the entries of /proc/self/fd read N times (one descriptor)
 *     utimes N     utimensat("/tmp", now), N times
 *     fsync N      fsync() of /tmp, N times
 *     mincore N    mincore() of a written page, N times
 *     sigwait N    SIGUSR1 raised while blocked and taken by sigtimedwait(),
 *                  N times
 *     getcwd N     getcwd(), N times
 *     perfev N     a software perf event (task clock) opened and closed, N times
 *     netlink N    the links listed over NETLINK_ROUTE (an RTM_GETLINK dump),
 *                  N times (one socket)
 *     setuid N     setresuid() to the ids it has (new credentials), N times
 *     sem N        a System V semaphore raised and lowered (semop), N times
 *     shm N        a System V shared memory segment attached, written and
 *                  detached, N times (one segment)
 *     memfd N      a memfd made and closed, N times
 *     epollctl N   a pipe's end added to an epoll set and removed, N times
 *     select N     select() on a pipe with a byte in it, N times
 *     statfs N     statfs("/tmp"), N times
 *     symlink N    a symbolic link made in /tmp and removed, N times
 *     chdir N      chdir("/tmp") and back to "/", N times
 *     tcpclose N   a loopback TCP connection made and its three sockets
 *                  closed, N times
 *     mq N         a POSIX message queue opened, closed and removed, N times
 *     capget N     the task's capabilities read, N times
 *     waitid N     waitid() on a child that exited, N times (fork each time)
 *     spin MS      burn CPU in user space for MS milliseconds
 *   Several commands may follow each other: wl openmiss 3 getpid 5.
 *   --stop: stop (SIGSTOP) before running, so a tracer can be set up from
 *   outside and the task resumed with SIGCONT.
 * Prints nothing on success unless -v; exit 1 on failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/bpf.h>
#include <linux/futex.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>
#include <mqueue.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static int verbose;

#define fail(...)                                  \
	do {                                       \
		fprintf(stderr, "wl: " __VA_ARGS__); \
		fputc('\n', stderr);               \
		return -1;                         \
	} while (0)

static int do_openmiss(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open("/nonexistent/bpfgraph-wl", O_RDONLY);

		if (fd >= 0)
			fail("open of a missing file succeeded");
		if (errno != ENOENT)
			fail("open: expected ENOENT, got %s", strerror(errno));
	}
	return 0;
}

static void *openmiss_thread(void *arg)
{
	long n = *(long *)arg;

	*(long *)arg = syscall(SYS_gettid);
	return (void *)(long)do_openmiss(n);
}

/* In the child: its thread's opens, then its own, then the thread joined. */
static int forkmiss_child(long n)
{
	long tid = n;
	pthread_t t;
	void *ret;
	int err;

	err = pthread_create(&t, NULL, openmiss_thread, &tid);
	if (err)
		fail("pthread_create: %s", strerror(err));
	if (do_openmiss(n) || pthread_join(t, &ret) || ret)
		return -1;
	if (verbose)
		fprintf(stderr, "forkmiss: parent %d child %d thread %ld\n", (int)getppid(),
			(int)getpid(), tid);
	return 0;
}

static int do_forkmiss(long n)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(forkmiss_child(n) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("forkmiss: the child failed (status 0x%x)", status);
	return 0;
}

static struct sockaddr_in loopback(void)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int do_udp(long n)
{
	struct sockaddr_in a = loopback();
	socklen_t len = sizeof(a);
	char buf[32] = "bpfgraph-wl";
	int rx, tx, err = -1;

	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0) {
		fprintf(stderr, "wl: socket: %s\n", strerror(errno));
		goto out;
	}
	if (bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &len)) {
		fprintf(stderr, "wl: bind: %s\n", strerror(errno));
		goto out;
	}
	for (long i = 0; i < n; i++) {
		if (sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&a,
			   sizeof(a)) != sizeof(buf)) {
			fprintf(stderr, "wl: sendto: %s\n", strerror(errno));
			goto out;
		}
		/* Drain each datagram so the receive queue never fills up. */
		if (recv(rx, buf, sizeof(buf), 0) != sizeof(buf)) {
			fprintf(stderr, "wl: recv: %s\n", strerror(errno));
			goto out;
		}
	}
	err = 0;
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return err;
}

static int tcp_pair(int *lsn, int *cli, int *srv)
{
	struct sockaddr_in a = loopback();
	socklen_t len = sizeof(a);

	*lsn = socket(AF_INET, SOCK_STREAM, 0);
	*cli = socket(AF_INET, SOCK_STREAM, 0);
	*srv = -1;
	if (*lsn < 0 || *cli < 0)
		fail("socket: %s", strerror(errno));
	if (bind(*lsn, (struct sockaddr *)&a, sizeof(a)) || listen(*lsn, 1) ||
	    getsockname(*lsn, (struct sockaddr *)&a, &len))
		fail("bind/listen: %s", strerror(errno));
	if (connect(*cli, (struct sockaddr *)&a, sizeof(a)))
		fail("connect: %s", strerror(errno));
	*srv = accept(*lsn, NULL, NULL);
	if (*srv < 0)
		fail("accept: %s", strerror(errno));
	return 0;
}

static int tcp_exchange(int cli, int srv, long n)
{
	char buf[64];
	long want = n * (long)sizeof(buf), got = 0;

	memset(buf, 'w', sizeof(buf));
	for (long i = 0; i < n; i++)
		if (send(cli, buf, sizeof(buf), 0) != sizeof(buf))
			fail("send: %s", strerror(errno));
	while (got < want) {
		ssize_t r = recv(srv, buf, sizeof(buf), 0);

		if (r <= 0)
			fail("recv: %s", r ? strerror(errno) : "connection closed");
		got += r;
	}
	return 0;
}

static int do_tcp(long n)
{
	int lsn, cli, srv, err;

	err = tcp_pair(&lsn, &cli, &srv);
	if (!err)
		err = tcp_exchange(cli, srv, n);
	if (srv >= 0)
		close(srv);
	if (cli >= 0)
		close(cli);
	if (lsn >= 0)
		close(lsn);
	return err;
}

static int do_pipe(long n)
{
	int p[2], err = 0;
	char c = 'x';

	if (pipe(p))
		fail("pipe: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++) {
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) {
			fprintf(stderr, "wl: pipe write/read: %s\n", strerror(errno));
			err = -1;
		}
	}
	close(p[0]);
	close(p[1]);
	return err;
}

/* PATH opened once and read n times from its start (pread). */
static int pread_loop(const char *path, long n)
{
	char buf[1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	for (long i = 0; i < n; i++) {
		if (pread(fd, buf, sizeof(buf), 0) <= 0) {
			fprintf(stderr, "wl: read %s: %s\n", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

static int do_read(long n)
{
	return pread_loop("/proc/version", n);
}

#define MAP_PAGES 16

/* A 64 KiB private mapping, its first `touch` pages written, unmapped. */
static int map_touch(long touch)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, MAP_PAGES * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	for (long i = 0; i < touch; i++)
		p[i * pg] = 1;
	if (munmap(p, MAP_PAGES * pg))
		fail("munmap: %s", strerror(errno));
	return 0;
}

static int do_mmap(long n)
{
	for (long i = 0; i < n; i++)
		if (map_touch(MAP_PAGES))
			return -1;
	return 0;
}

static int do_fault(long n)
{
	if (n > MAP_PAGES)
		fail("fault: at most %d pages", MAP_PAGES);
	return map_touch(n);
}

static int do_mprotect(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err = 0;

	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	p[0] = 1;
	for (long i = 0; i < n && !err; i++)
		if (mprotect(p, pg, PROT_READ) || mprotect(p, pg, PROT_READ | PROT_WRITE)) {
			fprintf(stderr, "wl: mprotect: %s\n", strerror(errno));
			err = -1;
		}
	munmap(p, pg);
	return err;
}

static int do_write(long n)
{
	/*
	 * A new file at a process's first write: every run's first call then
	 * allocates the page and the later ones overwrite it, and the first
	 * one checks whether the write must drop privileges (file_remove_privs:
	 * a new inode is not yet marked S_NOSEC), whichever tracer's run came
	 * first (a file kept from run to run would be marked by then).
	 */
	static int made;
	char buf[4096];
	int fd, err = 0;

	if (!made && unlink("/tmp/bpfgraph-wl.write") && errno != ENOENT)
		fail("unlink /tmp/bpfgraph-wl.write: %s", strerror(errno));
	made = 1;
	fd = open("/tmp/bpfgraph-wl.write", O_WRONLY | O_CREAT, 0600);

	if (fd < 0)
		fail("open /tmp/bpfgraph-wl.write: %s", strerror(errno));
	memset(buf, 'w', sizeof(buf));
	for (long i = 0; i < n && !err; i++)
		if (pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf)) {
			fprintf(stderr, "wl: write /tmp/bpfgraph-wl.write: %s\n", strerror(errno));
			err = -1;
		}
	close(fd);
	return err;
}

static int do_stat(long n)
{
	struct stat st;

	for (long i = 0; i < n; i++)
		if (stat("/bin/wl", &st))
			fail("stat /bin/wl: %s", strerror(errno));
	return 0;
}

static int do_readdir(long n)
{
	char buf[4096];
	int fd = open("/", O_RDONLY | O_DIRECTORY), err = 0;

	if (fd < 0)
		fail("open /: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++) {
		long r;

		lseek(fd, 0, SEEK_SET);
		while ((r = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			;
		if (r < 0) {
			fprintf(stderr, "wl: getdents64 /: %s\n", strerror(errno));
			err = -1;
		}
	}
	close(fd);
	return err;
}

static int do_futex(long n)
{
	static int word;

	for (long i = 0; i < n; i++)
		if (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0)
			fail("futex: %s", strerror(errno));
	return 0;
}

static volatile sig_atomic_t kills_caught;

static void on_kill_signal(int sig)
{
	(void)sig;
	kills_caught++;
}

static int do_kill(long n)
{
	struct sigaction sa = { .sa_handler = on_kill_signal };

	kills_caught = 0;
	if (sigaction(SIGUSR2, &sa, NULL))
		fail("sigaction: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (kill(getpid(), SIGUSR2))
			fail("kill: %s", strerror(errno));
	if (kills_caught != n)
		fail("kill: %d of %ld signals caught", (int)kills_caught, n);
	return 0;
}

/* A child that exits at once, reaped by waitpid() or waitid(), n times. */
static int fork_reap(long n, int by_waitid)
{
	for (long i = 0; i < n; i++) {
		siginfo_t si;
		int status;
		pid_t c = fork();

		if (c < 0)
			fail("fork: %s", strerror(errno));
		if (c == 0)
			_exit(0);
		if (by_waitid) {
			if (waitid(P_PID, (id_t)c, &si, WEXITED))
				fail("waitid: %s", strerror(errno));
		} else if (waitpid(c, &status, 0) != c || !WIFEXITED(status) ||
			   WEXITSTATUS(status)) {
			fail("fork: the child did not exit with 0");
		}
	}
	return 0;
}

static int do_fork(long n)
{
	return fork_reap(n, 0);
}

static volatile sig_atomic_t woken;

static void on_wake(int sig)
{
	(void)sig;
	woken = 1;
}

/* Waits for SIGUSR1 n times: a pause outside any traced call, ended from outside. */
static int do_pause(long n)
{
	sigset_t block, old;

	signal(SIGUSR1, on_wake);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (long i = 0; i < n; i++) {
		while (!woken)
			sigsuspend(&old);
		woken = 0;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/*
 * Opens WL_FIFO for reading n times (made if missing): each open waits
 * inside the system call until a writer opens it, a call that stays under
 * way for as long as the caller wants.
 */
#define WL_FIFO "/tmp/bpfgraph-wl.fifo"

static int do_fifo(long n)
{
	if (mkfifo(WL_FIFO, 0600) && errno != EEXIST)
		fail("mkfifo %s: %s", WL_FIFO, strerror(errno));
	for (long i = 0; i < n; i++) {
		int fd = open(WL_FIFO, O_RDONLY);

		if (fd < 0)
			fail("open %s: %s", WL_FIFO, strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_getpid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	return 0;
}

static int do_usleep(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			fail("nanosleep: %s", strerror(errno));
	return 0;
}

static int do_sleep(long ms)
{
	return do_usleep(ms * 1000);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* volatile: the busy loop must not be optimised away. */
static volatile unsigned long spin_sink;

static int do_spin(long ms)
{
	long end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			spin_sink += i;
	return 0;
}

static volatile sig_atomic_t loop_mark, loop_end;

static void on_loop_signal(int sig)
{
	if (sig == SIGUSR1)
		loop_mark = 1;
	else
		loop_end = 1;
}

static int do_readloop(long ms)
{
	struct sigaction sa = { .sa_handler = on_loop_signal };
	long end = ms ? now_ms() + ms : 0;
	unsigned long calls = 0;
	struct timespec ts;
	char buf[512];
	int fd;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = open("/proc/version", O_RDONLY);
	if (fd < 0)
		fail("open /proc/version: %s", strerror(errno));
	while (!loop_end && (!end || now_ms() < end)) {
		if (pread(fd, buf, sizeof(buf), 0) <= 0) {
			fprintf(stderr, "wl: read /proc/version: %s\n", strerror(errno));
			close(fd);
			return -1;
		}
		calls++;
		if (loop_mark) {
			loop_mark = 0;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			printf("mark %lu %lld\n", calls,
			       (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
			fflush(stdout);
		}
	}
	close(fd);
	printf("total %lu\n", calls);
	fflush(stdout);
	return 0;
}

static int do_timer(long n)
{
	struct itimerspec its = { .it_value = { 0, 1000000L } };
	uint64_t expired;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		fail("timerfd_create: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		if (timerfd_settime(fd, 0, &its, NULL))
			fail("timerfd_settime: %s", strerror(errno));
		if (read(fd, &expired, sizeof(expired)) != sizeof(expired))
			fail("read timerfd: %s", strerror(errno));
	}
	close(fd);
	return 0;
}

#define WL_NOEXEC "/tmp/bpfgraph-wl.noexec"

/*
 * execveat() by descriptor, not execve(): the command's own start is an
 * execve() of the traced task, which -G __x64_sys_execveat leaves out.
 */
static int do_execfail(long n)
{
	static const char junk[] = "not a program, no #! and no ELF header\n";
	char *argv[] = { (char *)WL_NOEXEC, NULL }, *envp[] = { NULL };
	int fd = open(WL_NOEXEC, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

	if (fd < 0 || write(fd, junk, sizeof(junk) - 1) != (ssize_t)sizeof(junk) - 1)
		fail("%s: %s", WL_NOEXEC, strerror(errno));
	close(fd);
	fd = open(WL_NOEXEC, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("%s: %s", WL_NOEXEC, strerror(errno));
	for (long i = 0; i < n; i++)
		if (syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH) == 0 || errno != ENOEXEC)
			fail("execveat %s: %s, expected ENOEXEC", WL_NOEXEC, strerror(errno));
	close(fd);
	return 0;
}

static int do_epoll(long n)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int p[2], ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || pipe(p) || write(p[1], "x", 1) != 1 || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		fail("epoll set-up: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (epoll_wait(ep, &out, 1, 1000) != 1)
			fail("epoll_wait: %s", strerror(errno));
	close(p[0]);
	close(p[1]);
	close(ep);
	return 0;
}

static int do_unix(long n)
{
	char buf[64] = { 0 };
	int sv[2], err = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		fail("socketpair: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++)
		if (write(sv[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    read(sv[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "wl: unix send/receive: %s\n", strerror(errno));
			err = -1;
		}
	close(sv[0]);
	close(sv[1]);
	return err;
}

#define WL_DIR "/tmp/bpfgraph-wl.d"
#define WL_DIR2 "/tmp/bpfgraph-wl.d2"

static int do_fsops(long n)
{
	rmdir(WL_DIR);
	rmdir(WL_DIR2);
	for (long i = 0; i < n; i++)
		if (mkdir(WL_DIR, 0700) || rename(WL_DIR, WL_DIR2) || rmdir(WL_DIR2))
			fail("mkdir/rename/rmdir in /tmp: %s", strerror(errno));
	return 0;
}

static int do_brk(long n)
{
	long top = syscall(SYS_brk, 0);

	for (long i = 0; i < n; i++) {
		if (syscall(SYS_brk, top + 65536) != top + 65536)
			fail("brk: the heap did not grow");
		*(volatile char *)top = 1;
		if (syscall(SYS_brk, top) != top)
			fail("brk: the heap did not shrink back");
	}
	return 0;
}

/* A private anonymous page (its size in *pg), or NULL with a message. */
static char *one_page(long *pg)
{
	char *p;

	*pg = sysconf(_SC_PAGESIZE);
	p = mmap(NULL, *pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		return p;
	fprintf(stderr, "wl: mmap: %s\n", strerror(errno));
	return NULL;
}

static int do_madvise(long n)
{
	long pg;
	char *p = one_page(&pg);
	int err = 0;

	if (!p)
		return -1;
	for (long i = 0; i < n && !err; i++) {
		p[0] = 1;
		if (madvise(p, pg, MADV_DONTNEED)) {
			fprintf(stderr, "wl: madvise: %s\n", strerror(errno));
			err = -1;
		}
	}
	munmap(p, pg);
	return err;
}

static int do_poll(long n)
{
	int p[2], err = 0;

	if (pipe(p) || write(p[1], "x", 1) != 1)
		fail("pipe: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		if (poll(&pfd, 1, 1000) != 1) {
			fprintf(stderr, "wl: poll: %s\n", strerror(errno));
			err = -1;
		}
	}
	close(p[0]);
	close(p[1]);
	return err;
}

static int do_eventfd(long n)
{
	int fd = eventfd(0, EFD_CLOEXEC), err = 0;
	uint64_t v = 1;

	if (fd < 0)
		fail("eventfd: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++)
		if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v) ||
		    read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
			fprintf(stderr, "wl: eventfd write/read: %s\n", strerror(errno));
			err = -1;
		}
	close(fd);
	return err;
}

static int do_socket(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			fail("socket: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_yield(long n)
{
	for (long i = 0; i < n; i++)
		sched_yield();
	return 0;
}

static int do_getrandom(long n)
{
	char buf[16];

	for (long i = 0; i < n; i++)
		if (syscall(SYS_getrandom, buf, sizeof(buf), 0) != (long)sizeof(buf))
			fail("getrandom: %s", strerror(errno));
	return 0;
}

static int do_dup(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = dup(2);

		if (fd < 0)
			fail("dup: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_pipe2(long n)
{
	for (long i = 0; i < n; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC))
			fail("pipe2: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
	}
	return 0;
}

#define WL_DATA "/tmp/bpfgraph-wl.data"

/* A file of 4 KiB in /tmp (made at the first use), opened for reading. */
static int data_file(void)
{
	static int made;
	char buf[4096];
	int fd;

	if (!made) {
		memset(buf, 'x', sizeof(buf));
		fd = open(WL_DATA, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "wl: %s: %s\n", WL_DATA, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		made = 1;
	}
	fd = open(WL_DATA, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "wl: %s: %s\n", WL_DATA, strerror(errno));
	return fd;
}

/* The file's 4 KiB moved into a pipe by sendfile() or splice(), read back. */
static int into_pipe(long n, int use_splice)
{
	static char buf[4096];
	int p[2], fd = data_file(), err = 0;

	if (fd < 0)
		return -1;
	if (pipe2(p, O_CLOEXEC)) {
		close(fd);
		fail("pipe: %s", strerror(errno));
	}
	for (long i = 0; i < n && !err; i++) {
		loff_t off = 0;
		ssize_t got = use_splice ? splice(fd, &off, p[1], NULL, sizeof(buf), 0)
					 : sendfile(p[1], fd, &off, sizeof(buf));

		if (got != (ssize_t)sizeof(buf) || read(p[0], buf, sizeof(buf)) != got) {
			fprintf(stderr, "wl: %s: %s\n", use_splice ? "splice" : "sendfile",
				strerror(errno));
			err = -1;
		}
	}
	close(p[0]);
	close(p[1]);
	close(fd);
	return err;
}

static int do_sendfile(long n)
{
	return into_pipe(n, 0);
}

static int do_splice(long n)
{
	return into_pipe(n, 1);
}

static int do_inotify(long n)
{
	int fd = inotify_init1(IN_CLOEXEC), err = 0;

	if (fd < 0)
		fail("inotify_init1: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++) {
		int wd = inotify_add_watch(fd, "/tmp", IN_CREATE);

		if (wd < 0 || inotify_rm_watch(fd, wd)) {
			fprintf(stderr, "wl: inotify watch: %s\n", strerror(errno));
			err = -1;
		}
	}
	close(fd);
	return err;
}

static int do_truncate(long n)
{
	int fd = memfd_create("bpfgraph-wl", MFD_CLOEXEC), err = 0;

	if (fd < 0)
		fail("memfd_create: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++)
		if (ftruncate(fd, 65536) || ftruncate(fd, 0)) {
			fprintf(stderr, "wl: ftruncate: %s\n", strerror(errno));
			err = -1;
		}
	close(fd);
	return err;
}

static int do_mremap(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	/* Four pages reserved, so that growing in place always has room. */
	char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p + 2 * pg, 2 * pg))
		fail("mmap: %s", strerror(errno));
	p[0] = p[pg] = 1;
	for (long i = 0; i < n; i++)
		if (mremap(p, 2 * pg, 4 * pg, 0) != p || mremap(p, 4 * pg, 2 * pg, 0) != p)
			fail("mremap in place: %s", strerror(errno));
	munmap(p, 2 * pg);
	return 0;
}

static int do_mlock(long n)
{
	long pg;
	char *p = one_page(&pg);
	int err = 0;

	if (!p)
		return -1;
	p[0] = 1;
	for (long i = 0; i < n && !err; i++)
		if (mlock(p, pg) || munlock(p, pg)) {
			fprintf(stderr, "wl: mlock: %s\n", strerror(errno));
			err = -1;
		}
	munmap(p, pg);
	return err;
}

static void *idle_thread(void *arg)
{
	return arg;
}

static int do_thread(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *ret;
		int err = pthread_create(&t, NULL, idle_thread, NULL);

		if (err || (err = pthread_join(t, &ret)))
			fail("thread: %s", strerror(err));
	}
	return 0;
}

static int do_sigmask(long n)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	for (long i = 0; i < n; i++)
		if (sigprocmask(SIG_BLOCK, &set, NULL) || sigprocmask(SIG_UNBLOCK, &set, NULL))
			fail("sigprocmask: %s", strerror(errno));
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int do_sigaction(long n)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	for (long i = 0; i < n; i++)
		if (sigaction(SIGUSR1, &sa, NULL))
			fail("sigaction: %s", strerror(errno));
	return 0;
}

#define WL_UNLINK "/tmp/bpfgraph-wl.unlink"

static int do_unlink(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open(WL_UNLINK, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0 || close(fd) || unlink(WL_UNLINK))
			fail("%s: %s", WL_UNLINK, strerror(errno));
	}
	return 0;
}

static int do_fallocate(long n)
{
	int fd = open("/tmp/bpfgraph-wl.falloc", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600),
	    err = 0;

	if (fd < 0)
		fail("/tmp/bpfgraph-wl.falloc: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++)
		if (fallocate(fd, 0, 0, 65536) || ftruncate(fd, 0)) {
			fprintf(stderr, "wl: fallocate: %s\n", strerror(errno));
			err = -1;
		}
	close(fd);
	unlink("/tmp/bpfgraph-wl.falloc");
	return err;
}

static int do_sysinfo(long n)
{
	struct sysinfo si;

	for (long i = 0; i < n; i++)
		if (sysinfo(&si))
			fail("sysinfo: %s", strerror(errno));
	return 0;
}

static int do_uname(long n)
{
	struct utsname u;

	for (long i = 0; i < n; i++)
		if (uname(&u))
			fail("uname: %s", strerror(errno));
	return 0;
}

static int do_itimer(long n)
{
	struct itimerval on = { .it_value = { 60, 0 } }, off = { 0 };

	for (long i = 0; i < n; i++)
		if (setitimer(ITIMER_REAL, &on, NULL) || setitimer(ITIMER_REAL, &off, NULL))
			fail("setitimer: %s", strerror(errno));
	return 0;
}

static int do_prlimit(long n)
{
	struct rlimit r;

	for (long i = 0; i < n; i++)
		if (prlimit(0, RLIMIT_NOFILE, NULL, &r) || prlimit(0, RLIMIT_NOFILE, &r, NULL))
			fail("prlimit: %s", strerror(errno));
	return 0;
}

static int do_affinity(long n)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		fail("sched_getaffinity: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (sched_setaffinity(0, sizeof(set), &set))
			fail("sched_setaffinity: %s", strerror(errno));
	return 0;
}

static int do_procstat(long n)
{
	return pread_loop("/proc/self/stat", n);
}

static int do_sysfs(long n)
{
	return pread_loop("/sys/devices/system/cpu/online", n);
}

#define WL_COPY "/tmp/bpfgraph-wl.copy"

static int do_copyrange(long n)
{
	int in = data_file(), out = open(WL_COPY, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (in < 0 || out < 0)
		fail("copyrange: %s: %s", WL_COPY, strerror(errno));
	for (long i = 0; i < n; i++) {
		loff_t from = 0, to = 0;

		if (copy_file_range(in, &from, out, &to, 4096, 0) != 4096)
			fail("copy_file_range: %s", strerror(errno));
	}
	close(in);
	close(out);
	unlink(WL_COPY);
	return 0;
}

static int do_flock(long n)
{
	int fd = memfd_create("wl-flock", MFD_CLOEXEC);

	if (fd < 0)
		fail("memfd_create: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (flock(fd, LOCK_EX) || flock(fd, LOCK_UN))
			fail("flock: %s", strerror(errno));
	close(fd);
	return 0;
}

static int do_readlink(long n)
{
	char buf[256];

	for (long i = 0; i < n; i++)
		if (readlink("/proc/self/exe", buf, sizeof(buf)) <= 0)
			fail("readlink /proc/self/exe: %s", strerror(errno));
	return 0;
}

static int do_access(long n)
{
	for (long i = 0; i < n; i++)
		if (access("/bin/wl", X_OK))
			fail("access /bin/wl: %s", strerror(errno));
	return 0;
}

/* A missing extended attribute of /tmp asked for: ENODATA each time. */
static int do_xattr(long n)
{
	char buf[64];

	for (long i = 0; i < n; i++)
		if (getxattr("/tmp", "user.bpfgraph-wl", buf, sizeof(buf)) >= 0 ||
		    (errno != ENODATA && errno != EOPNOTSUPP))
			fail("getxattr /tmp: %s", strerror(errno));
	return 0;
}

static int do_prctl(long n)
{
	char name[16];

	for (long i = 0; i < n; i++)
		if (prctl(PR_GET_NAME, name) || prctl(PR_SET_NAME, name))
			fail("prctl: %s", strerror(errno));
	return 0;
}

static int do_rusage(long n)
{
	struct rusage ru;

	for (long i = 0; i < n; i++)
		if (getrusage(RUSAGE_SELF, &ru))
			fail("getrusage: %s", strerror(errno));
	return 0;
}

static int do_nullwrite(long n)
{
	static const char buf[64];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		fail("open /dev/null: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			fail("write /dev/null: %s", strerror(errno));
	close(fd);
	return 0;
}

static int do_signalfd(long n)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	for (long i = 0; i < n; i++) {
		int fd = signalfd(-1, &set, SFD_CLOEXEC);

		if (fd < 0)
			fail("signalfd: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_pidfd(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = syscall(SYS_pidfd_open, getpid(), 0);

		if (fd < 0)
			fail("pidfd_open: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_lock(long n)
{
	struct flock on = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	struct flock off = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_len = 1 };
	int fd = memfd_create("wl-lock", MFD_CLOEXEC);

	if (fd < 0)
		fail("memfd_create: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (fcntl(fd, F_SETLK, &on) || fcntl(fd, F_SETLK, &off))
			fail("fcntl F_SETLK: %s", strerror(errno));
	close(fd);
	return 0;
}

static int do_ptimer(long n)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec on = { .it_value = { 60, 0 } };

	for (long i = 0; i < n; i++) {
		timer_t t;

		if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &t) ||
		    syscall(SYS_timer_settime, t, 0, &on, NULL) || syscall(SYS_timer_delete, t))
			fail("timer: %s", strerror(errno));
	}
	return 0;
}

static int do_msg(long n)
{
	struct {
		long type;
		char text[64];
	} m = { 1, "bpfgraph-wl" };
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600), err = 0;

	if (q < 0)
		fail("msgget: %s", strerror(errno));
	for (long i = 0; i < n && !err; i++)
		if (msgsnd(q, &m, sizeof(m.text), 0) ||
		    msgrcv(q, &m, sizeof(m.text), 0, IPC_NOWAIT) != sizeof(m.text)) {
			fprintf(stderr, "wl: msgsnd/msgrcv: %s\n", strerror(errno));
			err = -1;
		}
	msgctl(q, IPC_RMID, NULL);
	return err;
}

static int do_socketpair(long n)
{
	for (long i = 0; i < n; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			fail("socketpair: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
	}
	return 0;
}

static int do_chmod(long n)
{
	for (long i = 0; i < n; i++)
		if (chmod("/tmp", 01777))
			fail("chmod /tmp: %s", strerror(errno));
	return 0;
}

/* A shared mapping of a memfd's page: each write after the punch faults it in again. */
static int do_shmfault(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("wl-shm", MFD_CLOEXEC);
	char *p;

	if (fd < 0 || ftruncate(fd, pg))
		fail("memfd: %s", strerror(errno));
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		p[0] = 1;
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, pg))
			fail("fallocate: %s", strerror(errno));
	}
	munmap(p, pg);
	close(fd);
	return 0;
}

static int do_ioctl(long n)
{
	int p[2], avail;

	if (pipe(p) || write(p[1], "x", 1) != 1)
		fail("pipe: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (ioctl(p[0], FIONREAD, &avail) || avail != 1)
			fail("ioctl FIONREAD: %s", strerror(errno));
	close(p[0]);
	close(p[1]);
	return 0;
}

/* A one-slot BPF array made and closed (bpf(2): BPF_MAP_CREATE). */
static int do_bpfmap(long n)
{
	for (long i = 0; i < n; i++) {
		union bpf_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_ARRAY;
		a.key_size = 4;
		a.value_size = 8;
		a.max_entries = 1;
		fd = syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
		if (fd < 0)
			fail("bpf BPF_MAP_CREATE: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

/* A descriptor passed over a Unix datagram pair (SCM_RIGHTS) and closed. */
static int do_fdpass(long n)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		fail("socketpair: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		char byte = 'x';
		struct iovec iov = { &byte, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		int fd = 2, got;

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
		if (sendmsg(sv[0], &m, 0) != 1 || recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC) != 1)
			fail("sendmsg/recvmsg SCM_RIGHTS: %s", strerror(errno));
		c = CMSG_FIRSTHDR(&m);
		if (!c || c->cmsg_type != SCM_RIGHTS)
			fail("recvmsg: no descriptor came");
		memcpy(&got, CMSG_DATA(c), sizeof(int));
		close(got);
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static int do_sockopt(long n)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), v = 65536;

	if (s < 0)
		fail("socket: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
			fail("setsockopt SO_RCVBUF: %s", strerror(errno));
	close(s);
	return 0;
}

/* The entries of /proc/self/fd read, n times (one descriptor). */
static int do_procdir(long n)
{
	char buf[4096];
	int fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		fail("open /proc/self/fd: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		long r;

		lseek(fd, 0, SEEK_SET);
		while ((r = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			;
		if (r < 0)
			fail("getdents64 /proc/self/fd: %s", strerror(errno));
	}
	close(fd);
	return 0;
}

static int do_utimes(long n)
{
	for (long i = 0; i < n; i++)
		if (utimensat(AT_FDCWD, "/tmp", NULL, 0))
			fail("utimensat /tmp: %s", strerror(errno));
	return 0;
}

static int do_fsync(long n)
{
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		fail("open /tmp: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (fsync(fd))
			fail("fsync /tmp: %s", strerror(errno));
	close(fd);
	return 0;
}

static int do_mincore(long n)
{
	long pg;
	char *p = one_page(&pg);
	unsigned char vec;

	if (!p)
		return -1;
	p[0] = 1;
	for (long i = 0; i < n; i++)
		if (mincore(p, pg, &vec))
			fail("mincore: %s", strerror(errno));
	munmap(p, pg);
	return 0;
}

/* SIGUSR1 raised while blocked, then taken by sigtimedwait(). */
static int do_sigwait(long n)
{
	sigset_t set, old;
	struct timespec zero = { 0, 0 };

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (long i = 0; i < n; i++)
		if (raise(SIGUSR1) || sigtimedwait(&set, NULL, &zero) != SIGUSR1)
			fail("sigtimedwait: %s", strerror(errno));
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

static int do_getcwd(long n)
{
	char buf[256];

	for (long i = 0; i < n; i++)
		if (!getcwd(buf, sizeof(buf)))
			fail("getcwd: %s", strerror(errno));
	return 0;
}

/* A software perf event (the task's clock) opened and closed, n times. */
static int do_perfev(long n)
{
	for (long i = 0; i < n; i++) {
		struct perf_event_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.disabled = 1;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			fail("perf_event_open: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

/* The links listed over NETLINK_ROUTE (an RTM_GETLINK dump read to its end), n times. */
static int do_netlink(long n)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
	} req;
	char buf[16384];
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (s < 0)
		fail("socket NETLINK_ROUTE: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		int done = 0;

		memset(&req, 0, sizeof(req));
		req.h.nlmsg_len = sizeof(req);
		req.h.nlmsg_type = RTM_GETLINK;
		req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		req.h.nlmsg_seq = (unsigned int)i + 1;
		req.g.rtgen_family = AF_UNSPEC;
		if (send(s, &req, sizeof(req), 0) != sizeof(req))
			fail("send RTM_GETLINK: %s", strerror(errno));
		while (!done) {
			ssize_t r = recv(s, buf, sizeof(buf), 0);
			struct nlmsghdr *h = (struct nlmsghdr *)buf;

			if (r <= 0)
				fail("recv RTM_GETLINK: %s", r ? strerror(errno) : "closed");
			for (; NLMSG_OK(h, (unsigned int)r); h = NLMSG_NEXT(h, r))
				if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
					done = 1;
		}
	}
	close(s);
	return 0;
}

static int do_setuid(long n)
{
	uid_t r, e, sv;

	if (getresuid(&r, &e, &sv))
		fail("getresuid: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (setresuid(r, e, sv))
			fail("setresuid: %s", strerror(errno));
	return 0;
}

static int do_sem(long n)
{
	struct sembuf up = { 0, 1, 0 }, down = { 0, -1, 0 };
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);

	if (id < 0)
		fail("semget: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (semop(id, &up, 1) || semop(id, &down, 1))
			fail("semop: %s", strerror(errno));
	semctl(id, 0, IPC_RMID);
	return 0;
}

static int do_shm(long n)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);

	if (id < 0)
		fail("shmget: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		char *p = shmat(id, NULL, 0);

		if (p == (void *)-1)
			fail("shmat: %s", strerror(errno));
		p[0] = 1;
		shmdt(p);
	}
	shmctl(id, IPC_RMID, NULL);
	return 0;
}

static int do_memfd(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = (int)syscall(SYS_memfd_create, "bpfgraph-wl", 1U /* MFD_CLOEXEC */);

		if (fd < 0)
			fail("memfd_create: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

static int do_epollctl(long n)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2], ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || pipe2(p, O_CLOEXEC))
		fail("epoll_create1/pipe2: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		if (epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) ||
		    epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL))
			fail("epoll_ctl: %s", strerror(errno));
	close(p[0]);
	close(p[1]);
	close(ep);
	return 0;
}

static int do_select(long n)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) || write(p[1], "x", 1) != 1)
		fail("pipe2/write: %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		struct timeval tv = { 0, 0 };
		fd_set r;

		FD_ZERO(&r);
		FD_SET(p[0], &r);
		if (select(p[0] + 1, &r, NULL, NULL, &tv) != 1)
			fail("select: %s", strerror(errno));
	}
	close(p[0]);
	close(p[1]);
	return 0;
}

static int do_statfs(long n)
{
	struct statfs st;

	for (long i = 0; i < n; i++)
		if (statfs("/tmp", &st))
			fail("statfs /tmp: %s", strerror(errno));
	return 0;
}

static int do_symlink(long n)
{
	for (long i = 0; i < n; i++)
		if (symlink("/bin/wl", "/tmp/bpfgraph-wl.link") || unlink("/tmp/bpfgraph-wl.link"))
			fail("symlink/unlink /tmp/bpfgraph-wl.link: %s", strerror(errno));
	return 0;
}

static int do_chdir(long n)
{
	for (long i = 0; i < n; i++)
		if (chdir("/tmp") || chdir("/"))
			fail("chdir: %s", strerror(errno));
	return 0;
}

static int do_tcpclose(long n)
{
	for (long i = 0; i < n; i++) {
		int lsn, cli, srv, err = tcp_pair(&lsn, &cli, &srv);

		if (srv >= 0)
			close(srv);
		if (cli >= 0)
			close(cli);
		if (lsn >= 0)
			close(lsn);
		if (err)
			return err;
	}
	return 0;
}

static int do_mq(long n)
{
	for (long i = 0; i < n; i++) {
		mqd_t q = mq_open("/bpfgraph-wl", O_RDWR | O_CREAT | O_CLOEXEC, 0600, NULL);

		if (q == (mqd_t)-1)
			fail("mq_open: %s", strerror(errno));
		mq_close(q);
		if (mq_unlink("/bpfgraph-wl"))
			fail("mq_unlink: %s", strerror(errno));
	}
	return 0;
}

static int do_capget(long n)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	for (long i = 0; i < n; i++)
		if (syscall(SYS_capget, &h, d))
			fail("capget: %s", strerror(errno));
	return 0;
}

static int do_waitid(long n)
{
	return fork_reap(n, 1);
}

/* The commands after "exec N" (set by main): the exec'd program runs them. */
static char **exec_rest;
static int exec_nrest;

static int do_exec(long n)
{
	char count[24], *argv[exec_nrest + 4], *envp[] = { NULL };
	int k = 0;

	if (n == 0)
		return 0;
	argv[k++] = (char *)"wl";
	if (n > 1) {
		snprintf(count, sizeof(count), "%ld", n - 1);
		argv[k++] = (char *)"exec";
		argv[k++] = count;
	}
	for (int i = 0; i < exec_nrest; i++)
		argv[k++] = exec_rest[i];
	argv[k] = NULL;
	if (k == 1) /* nothing left to run: "wl" alone would print its usage */
		return 0;
	fflush(NULL);
	execve("/bin/wl", argv, envp);
	fail("execve /bin/wl: %s", strerror(errno));
}

static const struct cmd {
	const char *name;
	int (*fn)(long n);
} cmds[] = {
	{ "openmiss", do_openmiss }, { "forkmiss", do_forkmiss }, { "udp", do_udp },     { "tcp", do_tcp },
	{ "pipe", do_pipe },	     { "read", do_read },   { "getpid", do_getpid },
	{ "sleep", do_sleep },	     { "spin", do_spin },   { "readloop", do_readloop },
	{ "mmap", do_mmap },	     { "fault", do_fault }, { "mprotect", do_mprotect },
	{ "write", do_write },	     { "stat", do_stat },   { "readdir", do_readdir },
	{ "futex", do_futex },	     { "kill", do_kill },   { "fork", do_fork },
	{ "pause", do_pause },	     { "fifo", do_fifo },   { "timer", do_timer },
	{ "execfail", do_execfail }, { "epoll", do_epoll },
	{ "unix", do_unix },	     { "fsops", do_fsops }, { "brk", do_brk },
	{ "madvise", do_madvise },   { "poll", do_poll },   { "eventfd", do_eventfd },
	{ "socket", do_socket },     { "yield", do_yield }, { "getrandom", do_getrandom },
	{ "dup", do_dup },	     { "pipe2", do_pipe2 }, { "exec", do_exec },
	{ "sendfile", do_sendfile }, { "splice", do_splice }, { "inotify", do_inotify },
	{ "truncate", do_truncate }, { "mremap", do_mremap }, { "mlock", do_mlock },
	{ "thread", do_thread },     { "sigmask", do_sigmask }, { "sigaction", do_sigaction },
	{ "unlink", do_unlink },     { "fallocate", do_fallocate }, { "sysinfo", do_sysinfo },
	{ "uname", do_uname },	     { "itimer", do_itimer }, { "prlimit", do_prlimit },
	{ "affinity", do_affinity }, { "usleep", do_usleep }, { "procstat", do_procstat },
	{ "lock", do_lock },	     { "ptimer", do_ptimer }, { "msg", do_msg },
	{ "socketpair", do_socketpair }, { "chmod", do_chmod }, { "shmfault", do_shmfault },
	{ "ioctl", do_ioctl },	     { "sysfs", do_sysfs }, { "copyrange", do_copyrange },
	{ "flock", do_flock },	     { "readlink", do_readlink }, { "access", do_access },
	{ "xattr", do_xattr },	     { "prctl", do_prctl }, { "rusage", do_rusage },
	{ "nullwrite", do_nullwrite }, { "signalfd", do_signalfd }, { "pidfd", do_pidfd },
	{ "bpfmap", do_bpfmap },	     { "fdpass", do_fdpass }, { "sockopt", do_sockopt },
	{ "procdir", do_procdir },   { "utimes", do_utimes }, { "fsync", do_fsync },
	{ "mincore", do_mincore },   { "sigwait", do_sigwait }, { "getcwd", do_getcwd },
	{ "perfev", do_perfev },	     { "netlink", do_netlink }, { "setuid", do_setuid },
	{ "sem", do_sem },	     { "shm", do_shm },     { "memfd", do_memfd },
	{ "epollctl", do_epollctl }, { "select", do_select }, { "statfs", do_statfs },
	{ "symlink", do_symlink },   { "chdir", do_chdir }, { "tcpclose", do_tcpclose },
	{ "mq", do_mq },	     { "capget", do_capget }, { "waitid", do_waitid },
};

static int usage(void)
{
	fprintf(stderr,
		"usage: wl [-v] [--stop] CMD N [CMD N ...]\n"
		"  CMD: openmiss forkmiss udp tcp pipe read getpid mmap fault mprotect\n"
		"       write stat readdir futex kill fork pause fifo timer execfail\n"
		"       epoll unix fsops brk madvise poll eventfd socket yield\n"
		"       getrandom dup pipe2 exec sendfile splice inotify truncate\n"
		"       mremap mlock thread sigmask sigaction unlink fallocate sysinfo\n"
		"       uname itimer prlimit affinity procstat lock ptimer msg\n"
		"       socketpair chmod shmfault ioctl sysfs copyrange flock readlink\n"
		"       access xattr prctl rusage nullwrite signalfd pidfd bpfmap fdpass\n"
		"       sockopt procdir utimes fsync mincore sigwait getcwd perfev\n"
		"       netlink setuid sem shm memfd epollctl select statfs symlink chdir\n"
		"       tcpclose mq capget waitid (N times),\n"
		"       sleep spin readloop (N milliseconds), usleep (N microseconds)\n");
	return 2;
}

static int parse_count(const char *s, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(s, &end, 10);
	return errno || end == s || *end || *n < 0 ? -1 : 0;
}

static int run(const char *name, const char *arg)
{
	long n;

	if (parse_count(arg, &n)) {
		fprintf(stderr, "wl: %s: bad count '%s'\n", name, arg);
		return 2;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(cmds[i].name, name))
			continue;
		if (cmds[i].fn(n))
			return 1;
		if (verbose)
			printf("wl: %s %ld: ok\n", name, n);
		return 0;
	}
	fprintf(stderr, "wl: unknown command '%s'\n", name);
	return 2;
}

/*
 * wl's own image (its file's loaded segments) read in before anything
 * runs. Otherwise the code a run reaches last (exit's) faults at the end
 * of a run whose start (a --stop that the kernel's capture uses, or not)
 * faulted in other pages: a handle_mm_fault case then counted one call
 * more under one tracer, and its calls, paired from the end, were each
 * compared with the one before. Each page is read, not written: a write
 * would copy a private page and leave the copy in the CPU's LRU batch,
 * which a later call's drain then shows (madvise's first call). No system
 * call: the segments come from the program headers the kernel mapped
 * (not /proc/self/maps, whose open and reads the open and read cases
 * would count as their first calls), and not madvise(MADV_POPULATE_READ),
 * which the madvise case would.
 */
static int prefault_segment(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long page = *(unsigned long *)data;

	(void)size;
	/* The first object is the program itself (static: the only one). */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		unsigned long lo, hi;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !ph->p_filesz)
			continue;
		lo = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		hi = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
		for (; lo < hi; lo += page)
			(void)*(volatile const char *)lo;
	}
	return 1;
}

static void prefault_image(void)
{
	unsigned long page = (unsigned long)getauxval(AT_PAGESZ);

	if (page)
		dl_iterate_phdr(prefault_segment, &page);
}

int main(int argc, char **argv)
{
	int i = 1, stop = 0, rc;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--stop"))
			stop = 1;
		else
			return usage();
	}
	if (i >= argc || (argc - i) % 2)
		return usage();
	prefault_image();
	if (stop)
		raise(SIGSTOP);
	for (; i < argc; i += 2) {
		exec_rest = argv + i + 2;
		exec_nrest = argc - i - 2;
		rc = run(argv[i], argv[i + 1]);
		if (rc)
			return rc;
	}
	return 0;
}
