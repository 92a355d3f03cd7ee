/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * runrec.c: unit tests of common/runrec.c, the records between the
 * daemon and its runners and the run files a later daemon reads: each
 * decodes to what was encoded, a frame is whole or not yet, and what is
 * cut short, garbled or too big is refused, never read past its end.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../tap.h"

static void
test_request(void)
{
	static char	*env[] = { "HOME=/home/alice", "MAILTO=", NULL };
	struct runreq	 rq, got;
	char		*buf;
	size_t		 len, flen, i;
	int		 bad;

	memset(&rq, 0, sizeof(rq));
	rq.rq_id = "0123456789abcdef0123456789abcdef";
	rq.rq_fire = 1893456000;
	rq.rq_attempt = 2;
	rq.rq_node = "n1";
	rq.rq_start = 1893456000123LL;
	rq.rq_dir = "/var/lib/clustercron/runs";
	rq.rq_user = "alice";
	rq.rq_uid = 1000;
	rq.rq_gid = 1000;
	rq.rq_home = "/home/alice";
	rq.rq_cmd = "echo hi";
	rq.rq_env = env;
	rq.rq_input = "a\0b\n";
	rq.rq_inputlen = 4;
	rq.rq_pam = "clustercron";
	rq.rq_outmax = 4096;
	rq.rq_until = 123456;
	rq.rq_timeout = 30;
	rq.rq_nofile_cur = 1024;
	rq.rq_nofile_max = INT64_MAX;
	rq.rq_mailto = "alice";
	rq.rq_subject = "Output from your job 7";
	rq.rq_mailall = 1;
	if (runreq_encode(&rq, &buf, &len) == -1) {
		printf("Bail out! runreq_encode: %s\n", strerror(errno));
		exit(99);
	}
	ok(runrec_framed(buf, len, &flen) == 1 && flen == len,
	    "a request is one whole frame");
	ok(runrec_framed(buf, len - 1, &flen) == 0 &&
	    runrec_framed(buf, 3, &flen) == 0,
	    "... not whole while a byte is missing");
	ok(runreq_decode(buf, len, &got) == 0, "a request decodes");
	is_str(got.rq_id, rq.rq_id, "its id");
	ok(got.rq_fire == rq.rq_fire && got.rq_attempt == 2 &&
	    got.rq_start == rq.rq_start, "its fire, attempt and start");
	ok(got.rq_uid == 1000 && got.rq_gid == 1000, "its owner's ids");
	ok(got.rq_env != NULL && got.rq_env[2] == NULL &&
	    strcmp(got.rq_env[0], env[0]) == 0 &&
	    strcmp(got.rq_env[1], env[1]) == 0, "its environment, in order");
	ok(got.rq_inputlen == 4 && memcmp(got.rq_input, "a\0b\n", 4) == 0,
	    "its input, NUL bytes and all");
	is_str(got.rq_pam, "clustercron", "its PAM service");
	ok(got.rq_nofile_cur == 1024 && got.rq_nofile_max == INT64_MAX,
	    "its limit on open files");
	ok(got.rq_timeout == 30 && got.rq_until == 123456 &&
	    got.rq_outmax == 4096, "its timeout, deadline and output cap");
	is_str(got.rq_subject, "Output from your job 7",
	    "its mail's subject (at's)");
	ok(got.rq_mailall == 1, "... and that it mails even without output");
	ok(got.rq_mailfrom == NULL && got.rq_title == NULL,
	    "what was not set stays unset");
	runreq_free(&got);

	/* Every cut of the frame is refused, or read only as far as it goes. */
	bad = 0;
	for (i = 4; i < len; i++) {
		buf[0] = (char)((i - 4) & 0xff);
		buf[1] = (char)(((i - 4) >> 8) & 0xff);
		buf[2] = buf[3] = 0;
		if (runreq_decode(buf, i, &got) == 0) {
			/* Cut between fields: whatever it holds is whole. */
			runreq_free(&got);
		} else if (errno != EINVAL)
			bad++;
	}
	is_int(bad, 0, "a request cut anywhere is refused as invalid");
	free(buf);

	memset(&rq, 0, sizeof(rq));
	rq.rq_id = "x";
	rq.rq_node = "n1";
	rq.rq_dir = "/tmp";
	rq.rq_user = "alice";
	rq.rq_cmd = "true";
	rq.rq_attempt = 0;
	if (runreq_encode(&rq, &buf, &len) == -1)
		exit(99);
	ok(runreq_decode(buf, len, &got) == -1 && errno == EINVAL,
	    "a request of attempt 0 is refused");
	free(buf);
}

static void
test_frames(void)
{
	char	 big[4] = { 0, 0, 0, 0x7f };
	size_t	 flen;

	errno = 0;
	ok(runrec_framed(big, sizeof(big), &flen) == -1 && errno == EFBIG,
	    "a frame longer than RUNREC_MAX is refused (EFBIG)");
}

static void
test_message(void)
{
	struct runmsg	 rm, got;
	char		*buf;
	size_t		 len, flen;

	memset(&rm, 0, sizeof(rm));
	rm.rm_kind = RM_FAILED;
	rm.rm_num = 3;
	strlcpy(rm.rm_why, "exec /bin/nope: No such file", sizeof(rm.rm_why));
	if (runmsg_encode(&rm, &buf, &len) == -1)
		exit(99);
	ok(runrec_framed(buf, len, &flen) == 1 && flen == len &&
	    runmsg_decode(buf, len, &got) == 0 && got.rm_kind == RM_FAILED &&
	    got.rm_num == 3 && strcmp(got.rm_why, rm.rm_why) == 0,
	    "a message decodes to what was said");
	free(buf);
}

static void
test_runfile(void)
{
	struct runfile	 rf, got;
	char		*buf, name[64];
	size_t		 len;

	memset(&rf, 0, sizeof(rf));
	rf.rf_kind = RUNF_ENDED;
	rf.rf_id = "0123456789abcdef0123456789abcdef";
	rf.rf_fire = 1893456000;
	rf.rf_attempt = 1;
	rf.rf_node = "n1";
	rf.rf_user = "alice";
	rf.rf_what = "echo hi";
	rf.rf_label = "0123456789abcdef0123456789abcdef: echo hi";
	rf.rf_pid = 4242;
	rf.rf_start = 1893456000100LL;
	rf.rf_end = 1893456005200LL;
	rf.rf_wstatus = 3 << 8;
	outbuf_init(&rf.rf_out, 5);
	(void)outbuf_add(&rf.rf_out, "hello world\n", 12);
	if (runfile_encode(&rf, &buf, &len) == -1)
		exit(99);
	ok(runfile_decode(buf, len, &got) == 0, "a run file decodes");
	ok(got.rf_kind == RUNF_ENDED && got.rf_pid == 4242 &&
	    got.rf_start == rf.rf_start && got.rf_end == rf.rf_end &&
	    got.rf_wstatus == 3 << 8, "its end: pid, times, wait status");
	ok(got.rf_out.ob_len == 5 && memcmp(got.rf_out.ob_buf, "hello", 5) ==
	    0 && got.rf_out.ob_total == 12,
	    "its output: the head kept and all that was written counted");
	is_str(got.rf_node, "n1", "its node");
	runfile_free(&got);
	outbuf_free(&rf.rf_out);
	free(buf);

	ok(runfile_name(name, sizeof(name), "abc", 1893456000, 2, ".end") ==
	    0 && strcmp(name, "abc-1893456000-2.end") == 0,
	    "a run file's name: identity, fire, attempt, suffix");
	ok(runfile_name(name, 8, "abc", 1893456000, 2, ".end") == -1 &&
	    errno == ENAMETOOLONG, "a name too long for its buffer: refused");
}

int
main(void)
{
	test_request();
	test_frames();
	test_message();
	test_runfile();
	return (tap_done());
}
