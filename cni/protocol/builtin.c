// SPDX-License-Identifier: Apache-2.0
/* Delegates carried inside this binary. ib-sriov links ib-host-local's code;
 * when the ib-host-local that CNI_PATH holds is the executable linked from
 * that same code (its GNU build ID says so), exec'ing it would run exactly
 * what we can call: one exec and one fork fewer per ADD and per DEL, and no
 * second libc start-up. Any other file of that name (another version, a
 * wrapper, the Go plugin) is exec'ed as before. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/builtin.h"
#include "base/cleanup.h"
#include "base/log.h"

#define BUILTINS_MAX 4
/* Headers and notes sit in the first pages of any linker's output. */
#define ELF_HEAD_MAX 4096
#define NOTE_MAX     1024

static const struct cni_builtin *builtins[BUILTINS_MAX];
static size_t n_builtins;

int cni_delegate_builtin(const struct cni_builtin *b)
{
	if (!b->serve)
		return -EINVAL;
	if (n_builtins == BUILTINS_MAX)
		return -ENOSPC;
	builtins[n_builtins++] = b;
	return 0;
}

/* The GNU build ID among the notes in buf[n]: 0 and *len set, or -ENOENT. */
static int find_build_id(const unsigned char *buf, size_t n, struct cni_build_id *id)
{
	size_t off = 0;

	while (n - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, buf + off, sizeof(nh));
		off += sizeof(nh);
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > n - off || desc > n - off - name)
			return -ENOENT;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + off, "GNU", 4) && nh.n_descsz <= CNI_BUILD_ID_MAX) {
			memcpy(id->bytes, buf + off + name, nh.n_descsz);
			id->len = nh.n_descsz;
			return 0;
		}
		off += name + desc;
	}
	return -ENOENT;
}

/* The build ID in one PT_NOTE segment: read from head[n] when the segment
 * lies there (a linker puts notes right after the headers), else from fd. */
static int note_build_id(int fd, const unsigned char *head, size_t n, const Elf64_Phdr *ph,
			 struct cni_build_id *id)
{
	unsigned char buf[NOTE_MAX];
	size_t size;

	if (ph->p_filesz > sizeof(buf) || ph->p_offset > (Elf64_Off)INT64_MAX)
		return -ENOENT;
	size = (size_t)ph->p_filesz;
	if (ph->p_offset <= n && size <= n - ph->p_offset)
		return find_build_id(head + ph->p_offset, size, id);
	if (pread(fd, buf, size, (off_t)ph->p_offset) != (ssize_t)size)
		return -ENOENT;
	return find_build_id(buf, size, id);
}

int cni_elf_build_id(int fd, struct cni_build_id *id)
{
	unsigned char head[ELF_HEAD_MAX];
	ssize_t n = pread(fd, head, sizeof(head), 0);
	Elf64_Ehdr eh;

	if (n < (ssize_t)sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, head, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > (Elf64_Off)n ||
	    (size_t)eh.e_phnum * sizeof(Elf64_Phdr) > (size_t)n - eh.e_phoff)
		return -ENOEXEC;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, head + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE && !note_build_id(fd, head, (size_t)n, &ph, id))
			return 0;
	}
	return -ENOENT;
}

/* Is path b's executable? Read as any file under CNI_PATH is: no blocking
 * open, regular files only. */
static bool is_builtin(const struct cni_builtin *b, const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct cni_build_id id;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || cni_elf_build_id(fd, &id))
		return false;
	return id.len && id.len == b->id->len && !memcmp(id.bytes, b->id->bytes, id.len);
}

const struct cni_builtin *cni_builtin_for(const char *type, const char *path)
{
	const char *off = getenv("IBCNI_DELEGATE_EXEC");

	if (off && !strcmp(off, "1"))
		return NULL;
	for (size_t i = 0; i < n_builtins; i++)
		if (!strcmp(builtins[i]->type, type) && is_builtin(builtins[i], path))
			return builtins[i];
	return NULL;
}
