// SPDX-License-Identifier: Apache-2.0
/* Builtin delegates (cni/protocol/builtin.c): a delegate found on CNI_PATH is served
 * in-process only when the file carries the builtin's GNU build ID; its
 * answer reaches the caller exactly as an exec'ed delegate's would. */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "protocol/cni.h"
#include "helpers.h"
#include "protocol/builtin.h"
#include "protocol/delegate.h"
#include "base/util.h"

static const struct cni_build_id our = {20, {0xc7, 0x17, 0x1d, 0x7f, 0x2c, 0xab, 0xd1,
					     0xbe, 0x60, 0x85, 0x1a, 0xbf, 0x1a, 0xc7,
					     0x0a, 0x8b, 0xc6, 0x83, 0x78, 0x2d}};

/* A minimal 64-bit ELF file: a header, one PT_NOTE segment holding one
 * note (name "GNU", type ntype, desc id[len]). */
static void write_elf(const char *path, unsigned int ntype, const unsigned char *id, size_t len,
		      mode_t mode)
{
	unsigned char buf[512] = {0};
	Elf64_Ehdr eh = {.e_phoff = sizeof(Elf64_Ehdr),
			 .e_phentsize = sizeof(Elf64_Phdr),
			 .e_phnum = 1,
			 .e_type = ET_EXEC,
			 .e_machine = EM_X86_64,
			 .e_version = EV_CURRENT,
			 .e_ehsize = sizeof(Elf64_Ehdr)};
	size_t note = sizeof(eh) + sizeof(Elf64_Phdr);
	Elf64_Nhdr nh = {.n_namesz = 4, .n_descsz = (Elf64_Word)len, .n_type = ntype};
	Elf64_Phdr ph = {.p_type = PT_NOTE,
			 .p_offset = note,
			 .p_filesz = sizeof(nh) + 4 + ((len + 3) & ~(size_t)3)};
	int fd;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	memcpy(buf + note, &nh, sizeof(nh));
	memcpy(buf + note + sizeof(nh), "GNU", 4);
	memcpy(buf + note + sizeof(nh) + 4, id, len);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, buf, note + ph.p_filesz), (ssize_t)(note + ph.p_filesz));
	close(fd);
}

static int build_id_of(const char *path, struct cni_build_id *id)
{
	_cleanup_close_ int fd = open(path, O_RDONLY);

	cr_assert(fd >= 0);
	return cni_elf_build_id(fd, id);
}

Test(builtin, build_id_read_from_notes)
{
	char dir[64], path[128];
	struct cni_build_id id;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/elf", dir);
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	cr_assert_eq(build_id_of(path, &id), 0);
	cr_assert_eq(id.len, our.len);
	cr_assert_arr_eq(id.bytes, our.bytes, our.len);
	/* Another note type is not a build ID. */
	write_elf(path, NT_GNU_ABI_TAG, our.bytes, our.len, 0755);
	cr_assert_eq(build_id_of(path, &id), -ENOENT);
	/* A script, or a truncated header, is no ELF file. */
	tree_put(dir, "script", "#!/bin/sh\nexit 0\n");
	snprintf(path, sizeof(path), "%s/script", dir);
	cr_assert_eq(build_id_of(path, &id), -ENOEXEC);
	rm_tree(dir);
}

Test(builtin, hostile_headers_refused)
{
	char dir[64], path[128];
	unsigned char big[CNI_BUILD_ID_MAX + 4] = {0}, head[sizeof(Elf64_Ehdr)];
	struct cni_build_id id;
	Elf64_Ehdr eh;
	int fd;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/elf", dir);
	/* A build ID longer than any linker writes is not taken. */
	write_elf(path, NT_GNU_BUILD_ID, big, sizeof(big), 0755);
	cr_assert_eq(build_id_of(path, &id), -ENOENT);
	/* Program headers claimed past the end of what was read. */
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	fd = open(path, O_RDWR);
	cr_assert(fd >= 0);
	cr_assert_eq(pread(fd, head, sizeof(head), 0), (ssize_t)sizeof(head));
	memcpy(&eh, head, sizeof(eh));
	eh.e_phnum = 0xffff;
	cr_assert_eq(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	cr_assert_eq(cni_elf_build_id(fd, &id), -ENOEXEC);
	eh.e_phnum = 1;
	eh.e_phoff = 1u << 30;
	cr_assert_eq(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	cr_assert_eq(cni_elf_build_id(fd, &id), -ENOEXEC);
	close(fd);
	rm_tree(dir);
}

/* The builtin under test: ADD answers with one address and records what it
 * saw; DEL fails with a CNI error of its own. It runs in a child of the
 * test (fork, no exec), so what it saw is written to a shared page. */
#define SEEN_MAX 512
static char *seen_page(void)
{
	static char *page;

	if (!page) {
		page =
		    mmap(NULL, SEEN_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		cr_assert(page != MAP_FAILED);
	}
	return page;
}
#define seen seen_page()

static int fake_add(struct cni_ctx *ctx)
{
	static const char res[] =
	    "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.9.0.5/24\"}]}";
	struct json_object *o = json_tokener_parse(res);
	int ret;

	snprintf(seen, SEEN_MAX, "%s %s %s %s", ctx->env.command_str, ctx->env.containerid,
		 ctx->env.ifname, ctx->conf->name);
	ret = cni_result_from_json(o, ctx->conf->version, &ctx->result, &ctx->err);
	json_object_put(o);
	return ret;
}

static int fake_del(struct cni_ctx *ctx)
{
	return cni_errorf(&ctx->err, -EBUSY, 11, "fake busy", "try later");
}

static const struct cni_plugin fake_plugin = {
    .name = "fake-ipam", .about = "test", .add = fake_add, .del = fake_del, .check = fake_del};

static const struct cni_builtin fake = {
    .type = "fake-ipam", .plugin = &fake_plugin, .id = &our, .serve = cni_run_builtin};

/* A builtin whose data directory never answers (a FUSE or NFS mount). */
static int hang_add(struct cni_ctx *ctx)
{
	for (;;)
		pause();
	return 0;
}

static const struct cni_plugin hang_plugin = {
    .name = "hang-ipam", .about = "test", .add = hang_add, .del = hang_add, .check = hang_add};

static const struct cni_builtin hang = {
    .type = "hang-ipam", .plugin = &hang_plugin, .id = &our, .serve = cni_run_builtin};

/* An ADD of ctr1/net1 with CNI_PATH = dir. */
static struct cni_env env_in(const char *dir)
{
	return (struct cni_env){.command = CNI_CMD_ADD,
				.command_str = "ADD",
				.containerid = "ctr1",
				.netns = "/proc/self/ns/net",
				.ifname = "net1",
				.args = "",
				.path = dir};
}

static struct cni_conf *conf_with(const char *type)
{
	struct cni_error err = {0};
	struct cni_conf *conf;
	char *raw;

	cr_assert(asprintf(&raw,
			   "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"x\","
			   "\"ipam\":{\"type\":\"%s\"}}",
			   type) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &conf, &err), 0);
	return conf;
}

Test(builtin, served_without_exec_when_the_file_is_ours)
{
	char dir[64], path[128];
	struct cni_env env = env_in(dir);
	struct cni_conf *conf = conf_with("fake-ipam");
	struct cni_error err = {0};
	struct cni_result *res = NULL;
	struct cni_log_ctx outer;

	seen[0] = '\0'; /* the page mapped here, shared with the child */
	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fake-ipam", dir);
	/* Not executable as a program: exec'ing it could only fail. */
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	cr_assert_eq(cni_delegate_builtin(&fake), 0);
	cni_log_context("outer", "ADD", "c", "i");
	cr_assert_eq(cni_ipam_add(&env, conf, &res, &err), 0, "%s: %s", err.msg, err.details);
	/* Served by the builtin (nothing could exec the file), in a child:
	 * no descendant is left behind. */
	cr_assert_str_eq(seen, "ADD ctr1 net1 net");
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
	cr_assert_eq(res->n_ips, 1);
	cni_result_free(res);
	/* The builtin's error arrives as an exec'ed delegate's would. */
	cr_assert_lt(cni_ipam_run(&env, conf, CNI_CMD_DEL, &err), 0);
	assert_cni_error(&err, 11, "fake busy");
	cr_assert_str_eq(err.details, "try later");
	/* Our log prefix is back. */
	outer = cni_log_swap_context((struct cni_log_ctx){0});
	cr_assert_str_eq(outer.plugin, "outer");
	cr_assert_str_eq(outer.command, "ADD");
	cni_conf_free(conf);
	rm_tree(dir);
}

Test(builtin, other_files_are_exec_ed)
{
	static const unsigned char other_id[20] = {1};
	char dir[64], path[128];
	struct cni_env env = env_in(dir);
	struct cni_conf *conf = conf_with("fake-ipam");
	struct cni_error err = {0};
	struct cni_result *res = NULL;

	/* As cni_run does: a delegate that dies unread must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fake-ipam", dir);
	cr_assert_eq(cni_delegate_builtin(&fake), 0);
	seen[0] = '\0';
	/* Another build of the same name: exec'ed (and, being no program, failing). */
	write_elf(path, NT_GNU_BUILD_ID, other_id, sizeof(other_id), 0755);
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	cr_assert_eq(err.code, 103, "%d %s %s", err.code, err.msg, err.details);
	cr_assert_str_eq(seen, "");
	/* Ours, but the operator asked for exec. */
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	setenv("IBCNI_DELEGATE_EXEC", "1", 1);
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	cr_assert_eq(err.code, 103);
	cr_assert_str_eq(seen, "");
	unsetenv("IBCNI_DELEGATE_EXEC");
	/* Another type with our build ID is not the builtin either. */
	cni_conf_free(conf);
	conf = conf_with("other-ipam");
	snprintf(path, sizeof(path), "%s/other-ipam", dir);
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	cr_assert_eq(err.code, 103);
	cr_assert_str_eq(seen, "");
	cni_conf_free(conf);
	rm_tree(dir);
}

/* A builtin that never returns gets the exec'ed delegate's deadline: killed,
 * reaped, and the caller's error is the timeout, so ADD can roll back. */
Test(builtin, a_hung_builtin_times_out)
{
	char dir[64], path[128];
	struct cni_env env = env_in(dir);
	struct cni_conf *conf = conf_with("hang-ipam");
	struct cni_error err = {0};
	struct cni_result *res = NULL;
	uint64_t t0;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/hang-ipam", dir);
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	cr_assert_eq(cni_delegate_builtin(&hang), 0);
	setenv("IBCNI_DELEGATE_TIMEOUT_MS", "300", 1);
	t0 = now_ms();
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	cr_assert_lt(now_ms() - t0, 5000, "bounded by the deadline, not by the builtin");
	assert_cni_error(&err, 103, "delegated plugin timed out");
	cr_assert(strstr(err.details, "within 300 ms"), "%s", err.details);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "the hung child was reaped");
	cr_assert_null(res);
	unsetenv("IBCNI_DELEGATE_TIMEOUT_MS");
	cni_conf_free(conf);
	rm_tree(dir);
}

/* A builtin that says which directory it would touch: served in this
 * process when that directory is reached from inline_root without crossing
 * a mount, in a child otherwise. A plain variable tells which. */
static int served_here;
static char touched[128];

static int here_add(struct cni_ctx *ctx)
{
	served_here = 1;
	return fake_add(ctx);
}

static int touches(const struct cni_conf *conf, char *buf, size_t len)
{
	return copy_str(buf, len, touched);
}

static int openat2_works(void)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static const struct cni_plugin here_plugin = {
    .name = "here-ipam", .about = "test", .add = here_add, .del = fake_del, .check = fake_del};

Test(builtin, served_in_process_only_on_the_callers_filesystem)
{
	char dir[64], path[128], root[128];
	struct cni_env env = env_in(dir);
	struct cni_conf *conf = conf_with("here-ipam");
	struct cni_builtin here = {.type = "here-ipam",
				   .plugin = &here_plugin,
				   .id = &our,
				   .serve = cni_run_builtin,
				   .touches = touches,
				   .inline_root = root};
	struct cni_error err = {0};
	struct cni_result *res = NULL;

	seen[0] = '\0';
	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/here-ipam", dir);
	write_elf(path, NT_GNU_BUILD_ID, our.bytes, our.len, 0755);
	cr_assert_eq(cni_delegate_builtin(&here), 0);
	/* Below the root, not yet made: this process, where openat2 can tell
	 * (valgrind answers it ENOSYS: then, in doubt, a child). */
	snprintf(root, sizeof(root), "%s", dir);
	snprintf(touched, sizeof(touched), "%s/leases/net", dir);
	cr_assert_eq(cni_ipam_add(&env, conf, &res, &err), 0, "%s: %s", err.msg, err.details);
	cr_assert_eq(served_here, openat2_works(), "served in this process when it can tell");
	cni_result_free(res);
	/* Outside the root: a child (it saw the request, this process did not). */
	served_here = 0;
	seen[0] = '\0';
	snprintf(touched, sizeof(touched), "/tmp/elsewhere/net");
	cr_assert_eq(cni_ipam_add(&env, conf, &res, &err), 0, "%s: %s", err.msg, err.details);
	cr_assert_eq(served_here, 0, "served in a child");
	cr_assert_str_eq(seen, "ADD ctr1 net1 net");
	cni_result_free(res);
	/* A link on the way is doubt enough: a child. */
	snprintf(path, sizeof(path), "%s/link", dir);
	cr_assert_eq(symlink("/tmp", path), 0);
	snprintf(touched, sizeof(touched), "%s/link/net", dir);
	cr_assert_eq(cni_ipam_add(&env, conf, &res, &err), 0, "%s: %s", err.msg, err.details);
	cr_assert_eq(served_here, 0, "a link: served in a child");
	cni_result_free(res);
	cni_conf_free(conf);
	rm_tree(dir);
}
