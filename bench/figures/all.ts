/** Every figure, in the order they run (bench/figures/key-table.ts lists the keys they must fill). */
import type { Figure } from './figure';
import { appMemory } from './app-memory';
import { checkMail } from './checkmail';
import { flood } from './flood';
import { html2mb } from './html2mb';
import { idle } from './idle';
import { keys } from './keys';
import { memory } from './memory';
import { newMail } from './new-mail';
import { postgres } from './postgres';
import { serveChurn } from './serve-churn';
import { serveStart } from './serve-start';
import { smtpIngest } from './smtp-ingest';
import { ssh } from './ssh';
import { startup } from './startup';

export const FIGURES: readonly Figure[] = [
  startup,
  idle,
  keys,
  html2mb,
  memory,
  appMemory,
  newMail,
  checkMail,
  serveStart,
  serveChurn,
  smtpIngest,
  postgres,
  flood,
  ssh,
];
