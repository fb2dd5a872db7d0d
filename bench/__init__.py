"""`make bench`: throughput and latency of the embedded runtime, as ratios against the bare storage calls.

One run starts a Runtime in this process (the AWS emulator, moto, in a child process) and measures,
side by side against the same emulator:
  a. single sends (POST /v3/messages) against the same storage calls made directly with boto3;
  b. (the bare cost of a.) those calls, recorded from real sends and replayed;
  c. a 500- and a 5,000-recipient POST /v3/messages.batch against their own recorded calls, replayed;
  d. the delivery pipeline: sends through the dispatcher to the local mail sink;
  d2. end to end: test-key batches of 500 and 5,000 recipients from the API call to the last delivery;
  e. webhooks: an event's write to its first attempt at a receiver, against a direct POST, at 20/s
     and at 200/s;
  f. GET /v3/events, first page, on an account of 1,000,000 events (loaded straight into moto),
     against a bare Query of the same page; and moto's own Query against the emulator's patch;
  g. an export's rows per second and peak memory, against bare Query pages written as CSV;
  l. bulk verification (a runtime of its own, after the others): addresses/s, DNS queries against
     distinct domains, peak memory (bench/verify.py);
  o. load at twice each plan's rate (a runtime of its own too): the API's rate windows and SMTP's
     submission rate and connection cap, checked exact (bench/load.py).

The bare calls are not written by hand: bench.recorder sees every AWS call the service makes,
and bench.replay makes the same calls again, aimed at copies of the tables and queues they
wrote to. So when the send path gains or loses a call, the bare cost follows.

Absolute times say more about moto than about Postline; the ratios are the figures to compare, and
the growth of each two-size workload (c, d2): a ratio against bare calls cannot show a cost that
grows faster than the work, since both sides pay it.
"""
