import type { DoctorReport } from '../../node/index.js';

/** How a doctor row is named: the language, and for a row asked with a first line, that line (`shell (#!/bin/sh)`). */
export function doctorLanguageLabel(row: DoctorReport['languages'][number]): string {
  return row.firstLine ? `${row.language} (${row.firstLine})` : row.language;
}
