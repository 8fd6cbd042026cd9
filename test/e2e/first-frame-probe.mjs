// Loaded with `node --import` before the built app by startup-probe.test.ts: records, in the JSON file
// named by FIRST_FRAME_PROBE_OUT, which Intl objects the app builds and when (before or after the end
// mark of its first frame), the non-ASCII characters of that frame, and the Node modules loaded by then.
// It only watches: constructors and stdout.write are passed through unchanged.
import { writeFileSync } from 'node:fs';

const out = process.env.FIRST_FRAME_PROBE_OUT;
const state = { firstFrame: false, frameNonAscii: '', modulesAtFirstFrame: [], modulesAtExit: [], intl: [] };
const save = () => writeFileSync(out, JSON.stringify(state));

for (const name of [
  'Segmenter',
  'DateTimeFormat',
  'NumberFormat',
  'Collator',
  'PluralRules',
  'RelativeTimeFormat',
  'ListFormat',
  'DisplayNames',
  'Locale',
]) {
  const original = Intl[name];
  if (typeof original !== 'function') continue;
  Intl[name] = new Proxy(original, {
    construct(target, args, newTarget) {
      state.intl.push({ name, afterFirstFrame: state.firstFrame });
      save();
      // A program that draws no frame (the bare node:http peer): what it had loaded when it ended.
      process.on('exit', () => {
        state.modulesAtExit = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
        save();
      });
      return Reflect.construct(target, args, newTarget);
    },
  });
}

let frame = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (!state.firstFrame) {
    frame += String(chunk);
    const end = frame.indexOf('\x1b[?2026l');
    if (end !== -1) {
      state.firstFrame = true;
      state.frameNonAscii = [...new Set(frame.slice(0, end).replace(/[\x00-\x7f]/g, ''))].join('');
      state.modulesAtFirstFrame = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
      save();
      // A program that draws no frame (the bare node:http peer): what it had loaded when it ended.
      process.on('exit', () => {
        state.modulesAtExit = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
        save();
      });
    }
  }
  return write(chunk, ...rest);
};
save();
// A program that draws no frame (the bare node:http peer): what it had loaded when it ended.
process.on('exit', () => {
  state.modulesAtExit = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
  save();
});
