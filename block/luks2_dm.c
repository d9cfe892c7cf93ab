/* The dm-crypt table of a LUKS2 volume's segment 0 and cryptsetup's
 * names for its key and device, as cryptsetup 2.x writes them, so a
 * volume opened by hardinit looks to the real root's systemd like one
 * opened by systemd-cryptsetup. The key is named, never written. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>

#include "luks2.h"
#include "luks2_dm.h"
#include "luks2_hdr.h"
#include "pbkdf2.h"

/* len bytes of p, at least one, each a letter, a digit, '_' or one of
 * more: a crypto algorithm's name. */
static bool name_part(const char *p, size_t len, const char *more)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '_' && !(more && p[i] && strchr(more, p[i])))
			return false;
	return true;
}

/* IV[:IVOPTS]: plain64, essiv:sha256. */
static bool iv_part(const char *p)
{
	const char *colon = strchr(p, ':');
	if (!colon)
		return name_part(p, strlen(p), NULL);
	return name_part(p, (size_t)(colon - p), NULL) && name_part(colon + 1, strlen(colon + 1), "-");
}

bool hi_luks2_cipher_spec_ok(const char *spec)
{
	if (!strncmp(spec, "capi:", 5)) {
		const char *api = spec + 5, *dash = strrchr(api, '-');
		int depth = 0;
		if (!dash || !name_part(api, (size_t)(dash - api), "(),") || !iv_part(dash + 1))
			return false;
		for (const char *p = api; p < dash && depth >= 0; p++)
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		return depth == 0;
	}
	const char *d1 = strchr(spec, '-');
	if (!d1 || !name_part(spec, (size_t)(d1 - spec), NULL))
		return false;
	const char *mode = d1 + 1, *d2 = strchr(mode, '-');
	if (!d2)
		return name_part(mode, strlen(mode), NULL);         /* aes-ecb: no IV */
	return name_part(mode, (size_t)(d2 - mode), NULL) && iv_part(d2 + 1);
}

int hi_luks2_identity(const char *name, const char *uuid, char *out, size_t cap)
{
	int n = snprintf(out, cap, "cryptsetup:%s:%s", name, uuid);
	return n < 0 || (size_t)n >= cap ? -1 : n;
}

void hi_luks2_volume_key_id(const char *name, const char *uuid, const uint8_t *vk, size_t vklen,
			 uint8_t out[SHA256_BYTES])
{
	char text[LUKS2_IDENTITY_MAX];
	int n = hi_luks2_identity(name, uuid, text, sizeof text);
	hi_hmac_sha256(vk, vklen, (const uint8_t *)text, n < 0 ? 0 : (size_t)n, out);
}

void hi_luks2_key_desc(const char *uuid, int digest, char *out, size_t cap)
{
	snprintf(out, cap, "cryptsetup:%s-d%d", uuid, digest);
}

void hi_luks2_dm_uuid(const char *uuid, const char *name, char *out, size_t cap)
{
	char hex[LUKS2_UUID_MAX + 1];
	size_t k = 0;
	for (const char *p = uuid; *p && k < LUKS2_UUID_MAX; p++)
		if (*p != '-')
			hex[k++] = *p;
	hex[k] = '\0';
	snprintf(out, cap, LUKS2_DM_UUID_PREFIX "%s-%s", hex, name);
}

/* Segment 0's length on a device of dev_bytes, in whole sectors of its
 * sector size (dm-crypt's unit is 512 bytes). */
static int segment_sectors(const struct luks2_segment *s, uint64_t dev_bytes, uint64_t *sectors, char *err,
			   size_t errlen)
{
	uint64_t unit = s->sector_size / 512;
	uint64_t bytes = s->dynamic ? (dev_bytes > s->offset ? dev_bytes - s->offset : 0) : s->size;

	if (!s->dynamic && s->offset + s->size > dev_bytes) {
		snprintf(err, errlen, "segment 0 (%llu bytes at %llu) is past the device's end (%llu bytes)",
			 (unsigned long long)s->size, (unsigned long long)s->offset, (unsigned long long)dev_bytes);
		return -1;
	}
	*sectors = bytes / 512 / unit * unit;
	if (*sectors == 0) {
		snprintf(err, errlen, "no data: the device (%llu bytes) ends before the data offset %llu",
			 (unsigned long long)dev_bytes, (unsigned long long)s->offset);
		return -1;
	}
	return 0;
}

/* The table's optional words (" allow_discards sector_size:4096"), each
 * after a space, into feat; returns how many. */
static int table_features(const struct luks2_segment *s, const struct luks2_dm_opts *o, char *feat, size_t cap)
{
	struct { bool on; const char *word; } f[] = {
		{ o->discard, "allow_discards" },
		{ o->same_cpu_crypt, "same_cpu_crypt" },
		{ o->submit_from_crypt_cpus, "submit_from_crypt_cpus" },
		{ o->no_read_workqueue, "no_read_workqueue" },
		{ o->no_write_workqueue, "no_write_workqueue" },
	};
	int nfeat = 0;

	feat[0] = '\0';
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i].on) {
			size_t l = strlen(feat);
			snprintf(feat + l, cap - l, " %s", f[i].word);
			nfeat++;
		}
	if (s->sector_size != 512) {
		size_t l = strlen(feat);
		snprintf(feat + l, cap - l, " sector_size:%u", s->sector_size);
		nfeat++;
	}
	return nfeat;
}

/* The first keyslot segment 0's digest covers: its key_size is the key's. */
static const struct luks2_keyslot *segment_keyslot(const struct luks2_hdr *h)
{
	const struct luks2_digest *d = hi_luks2_segment_digest(h, 0);
	for (int i = 0; d && i < LUKS2_KEYSLOTS_MAX; i++)
		if (h->keyslot[i].used && (d->keyslots >> i & 1))
			return &h->keyslot[i];
	return NULL;
}

int hi_luks2_dm_table(const struct luks2_hdr *h, const struct luks2_dm_opts *o, const char *devnum, uint64_t dev_bytes,
	       const char *key_desc, char *out, size_t cap, uint64_t *sectors, char *err, size_t errlen)
{
	const struct luks2_segment *s = &h->segment[0];
	char feat[200];

	if (!s->used || strcmp(s->type, "crypt") != 0) {
		snprintf(err, errlen, "segment 0 is not a crypt segment");
		return -1;
	}
	if (!hi_luks2_cipher_spec_ok(s->encryption)) {
		/* Not echoed: the header's own bytes, maybe a table of its own. */
		snprintf(err, errlen, "segment 0's encryption is not a cipher spec (CIPHER-MODE[-IV[:IVOPTS]] or "
			 "capi:SPEC-IV, as cryptsetup writes); the header is damaged or was written to open "
			 "another table");
		return -1;
	}
	/* cipher_null stores the data as it is: whoever wrote such a header
	 * wrote the plain data too, and the boot would trust it as encrypted. */
	if (strstr(s->encryption, "cipher_null")) {
		snprintf(err, errlen, "segment 0 is not encrypted (cipher_null): its data is as readable and writable as "
			 "an unencrypted disk's; encrypt it (cryptsetup reencrypt) or remove it from the crypttab");
		return -1;
	}
	if (segment_sectors(s, dev_bytes, sectors, err, errlen) < 0)
		return -1;
	int nfeat = table_features(s, o, feat, sizeof feat);
	const struct luks2_keyslot *ks = segment_keyslot(h);
	if (!ks) {
		snprintf(err, errlen, "no keyslot for segment 0");
		return -1;
	}
	char nf[8] = "";
	if (nfeat)
		snprintf(nf, sizeof nf, " %d", nfeat);
	int n = snprintf(out, cap, "%s :%u:logon:%s %llu %s %llu%s%s", s->encryption, ks->key_size, key_desc,
			 (unsigned long long)s->iv_tweak, devnum, (unsigned long long)(s->offset / 512), nf, feat);
	if (n < 0 || (size_t)n >= cap) {
		snprintf(err, errlen, "dm-crypt table longer than %zu bytes", cap - 1);
		return -1;
	}
	return 0;
}

long hi_luks2_key_add(const char *desc, const uint8_t *vk, size_t len)
{
	return syscall(SYS_add_key, "logon", desc, vk, len, KEY_SPEC_THREAD_KEYRING);
}

void hi_luks2_key_drop(long serial)
{
	syscall(SYS_keyctl, KEYCTL_REVOKE, serial);
	syscall(SYS_keyctl, KEYCTL_UNLINK, serial, KEY_SPEC_THREAD_KEYRING);
}
