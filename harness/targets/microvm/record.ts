// The `microvm.json` checkpoint part: the machine shape a restore must rebuild (RAM size, disk, RAM capture mode).
import { TargetError } from '../../core/errors.js';
import type { CheckpointSource } from '../../store/types.js';
import type { MicrovmOptions } from './options.js';
import type { Accelerator } from '../guest/accel.js';
import type { RamCaptureMode } from './ram.js';

export const RECORD_PART = 'microvm.json';

export interface MachineRecord {
  memoryMiB: number;
  disk: boolean;
  ramCapture: RamCaptureMode;
  accelerator: Accelerator;
  imageHash: string;
}

export function machineRecord(opts: MicrovmOptions, accelerator: Accelerator, imageHash: string): MachineRecord {
  return { memoryMiB: opts.memoryMiB, disk: opts.disk, ramCapture: opts.ramCapture, accelerator, imageHash };
}

/** Read the record of a checkpoint and check that `opts` describe the same machine; TargetError otherwise. */
export async function checkRecord(source: CheckpointSource, opts: MicrovmOptions): Promise<MachineRecord> {
  const parts = source.parts();
  if (!parts.includes('ram') || !parts.includes(RECORD_PART)) {
    throw new TargetError(`checkpoint ${source.seq} is not a microvm checkpoint (parts: ${parts.join(', ')})`);
  }
  const record = JSON.parse((await source.get(RECORD_PART)).toString('utf8')) as Partial<MachineRecord>;
  const mode = record.ramCapture ?? 'stream';
  if (record.memoryMiB !== opts.memoryMiB || record.disk !== opts.disk || mode !== opts.ramCapture) {
    throw new TargetError(
      `checkpoint ${source.seq} was taken with memoryMiB=${record.memoryMiB} disk=${record.disk} ramCapture=${mode}; ` +
        `targetOptions say memoryMiB=${opts.memoryMiB} disk=${opts.disk} ramCapture=${opts.ramCapture}: restore needs the same machine`,
    );
  }
  return { ...(record as MachineRecord), ramCapture: mode };
}
