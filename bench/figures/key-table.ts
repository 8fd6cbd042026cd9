/**
 * The tables of issues 15, 17, 23, 27 and 38: each key `npm run bench -- --json` must carry, what it is, and the goal (shown
 * beside the number, never asserted: timing asserts do not belong in CI).
 */

export interface KeyInfo {
  key: string;
  what: string;
  goal: string;
}

/** The issues' tables, in their order: exactly the keys `--json` must carry. */
export const KEY_TABLE: readonly KeyInfo[] = [
  {
    key: 'startup_vs_ink',
    what: 'app start to its first frame / the same for a minimal Ink app (one <Text>), bundled alike',
    goal: '<= 1.3',
  },
  { key: 'startup_ratio', what: 'app start to its first frame / `node -e 0`', goal: '-' },
  {
    key: 'idle_bytes_per_s_80x24',
    what: 'bytes the idle app writes per second, 80x24, one message, over 20 s',
    goal: '<= 100',
  },
  {
    key: 'idle_cpu_pct',
    what: 'CPU of the idle app, push live, over its second idle minute (the first: idle_cpu_pct_first_minute)',
    goal: '<= 0.5',
  },
  { key: 'key_p95_ms_20', what: '`j` to its frame written, 20 messages listed (p95)', goal: '<= 10' },
  { key: 'key_p95_ms_10k', what: '`j` to its frame written, 10,000 messages listed (p95)', goal: '<= 16' },
  { key: 'html2mb_open_ms', what: 'Enter on a 2 MB HTML message to its text on screen (p95)', goal: '<= 150' },
  {
    key: 'html2mb_max_stall_ms',
    what: 'longest event-loop stall while opening it (p95 of the per-open longest)',
    goal: '<= 50',
  },
  { key: 'rss_mb_10k', what: 'app RSS with 10,000 messages listed (MB)', goal: '<= 100' },
  { key: 'rss_growth_mb_1000_polls', what: 'app RSS after 1,000 polls minus after 100 (MB)', goal: '<= 5' },
  {
    key: 'new_mail_p95_ms_over_interval',
    what: 'SMTP 250 to subject on screen minus the wait for the next poll, p95 (remote serve, 1 s polls)',
    goal: '<= 100',
  },
  {
    key: 'new_mail_local_p95_ms',
    what: 'SMTP 250 to subject on screen, p95, local service, default 5 s interval',
    goal: '<= 250',
  },
  { key: 'checkmail_p99_ms_500', what: 'check-mail p99, 500 messages in the inbox, 10 clients', goal: '<= 10' },
  { key: 'checkmail_growth_5000_over_500', what: 'check-mail p99 at 5,000 messages / at 500', goal: '<= 2' },
  { key: 'serve_start_ms_100k', what: 'serve spawn to listening, 100,000 stored messages (median)', goal: '<= 1,000' },
  { key: 'serve_rss_mb_100k', what: 'serve RSS then (MB)', goal: '<= 80' },
  // Issue 28 replaced the goal of 3x maildev with 1.2x.
  { key: 'smtp_vs_maildev', what: 'our durable SMTP ingest (msg/s) / maildev, same load, same run', goal: '>= 1.2' },
  // Issue 17 (serve on PostgreSQL); no goal there: each stands beside the file store's, same run.
  {
    key: 'checkmail_pg_p99_ms_500',
    what: 'check-mail p99 on Postgres (fsync on), 500 messages, 10 clients',
    goal: '-',
  },
  {
    key: 'smtp_pg_two_instances_msgs_per_s',
    what: 'SMTP ingest, two instances on one Postgres, 5+5 connections (msg/s)',
    goal: '-',
  },
  // Issue 28 (the Postgres path as fast as the data dir): each against its baseline in the same run.
  {
    key: 'checkmail_over_bare_http_500',
    what: 'check-mail p99, 500 messages / bare node:http serving the same bytes',
    goal: '<= 1.2',
  },
  {
    key: 'checkmail_pg_over_file_p99_500',
    what: 'check-mail p99 on Postgres / on a data dir, 500 messages, 10 clients',
    goal: '<= 1.3',
  },
  {
    key: 'smtp_pg_10_addresses_over_file',
    what: 'SMTP ingest, two instances on Postgres, ten addresses / one instance on a data dir',
    goal: '>= 0.8',
  },
  {
    key: 'smtp_pg_two_instances_over_file',
    what: 'the same, one address / one instance on a data dir',
    goal: '>= 0.5',
  },
  // Issue 27 (a public instance): one client's flood must leave another's mail flowing.
  // Issue 39 (ssh to the service).
  {
    key: 'ssh_first_frame_over_app',
    what: "`ssh -t` to the app's first frame / the installed app's start to its first frame (medians)",
    goal: '<= 1.5',
  },
  {
    key: 'ssh_rss_mb_per_session',
    what: 'serve RSS with 50 idle ssh app sessions minus with none, over 50 (MB)',
    goal: '<= 8',
  },
  { key: 'ssh_key_p95_ms_50', what: '`j` to its frame over ssh, 50 sessions open (p95)', goal: '<= 16' },
  // Issue 38 (memory as lean as the work): each over its baseline in the same run.
  {
    key: 'serve_churn_rss_over_empty_45s',
    what: 'serve RSS under churn at 45 s / its empty RSS (data dir)',
    goal: '<= 2',
  },
  { key: 'serve_churn_rss_over_empty_150s', what: 'the same at 150 s', goal: '<= 2' },
  { key: 'serve_churn_rss_over_empty_300s', what: 'the same at 300 s', goal: '<= 2' },
  {
    key: 'app_rss_over_ink_1000',
    what: "app RSS, 1,000 messages listed / the smallest Ink app's (one <Text>), same run",
    goal: '<= 1.5',
  },
  { key: 'app_rss_over_ink_10k', what: 'the same, 10,000 messages listed', goal: '<= 2' },
  {
    key: 'app_rss_growth_mb_3000_polls',
    what: 'app RSS after 3,000 polls minus after the first tenth (MB)',
    goal: '<= 5',
  },
  {
    key: 'app_rss_growth_mb_5000_new',
    what: 'the same over 5,000 new messages, the list held at 1,000 (MB)',
    goal: '<= 5',
  },
  { key: 'app_rss_growth_mb_1000_opens', what: 'the same over 1,000 viewer opens and closes (MB)', goal: '<= 5' },
  {
    key: 'flood_p95_ratio',
    what: 'quiet client delivery p95 while another floods two instances on one Postgres / without the flood',
    goal: '<= 2',
  },
];

export const REQUIRED_KEYS: readonly string[] = KEY_TABLE.map((k) => k.key);
