import type { DesktopClient } from '../engine/desktop-client';
import { byteSize } from './format';

interface UploadProgress {
    seq: number;
    name: string;
    sent: number;
    total: number;
}

/**
 * Shows the uploads' progress on stderr: on a terminal one line redrawn in place; elsewhere (`--progress` into a
 * file or a pipe) a line per tenth. Returns what stops it.
 */
export function showUploadProgress(client: DesktopClient): () => void {

    const terminal = process.stderr.isTTY === true;
    const shown = new Map<string, number>();
    const onProgress = ({ seq, name, sent, total }: UploadProgress) => {

        const percent = total === 0 ? 100 : Math.floor(sent * 100 / total);
        const key = `${seq}/${name}`;
        const step = terminal ? percent : percent - percent % 10;
        if (shown.get(key) === step) {
            return;
        }

        shown.set(key, step);
        const line = `uploading ${name}: ${percent}% (${byteSize(sent)} of ${byteSize(total)})`;
        process.stderr.write(terminal ? `\r\x1b[2K${line}${percent === 100 ? '\n' : ''}` : `${line}\n`);
    };

    client.on('upload-progress', onProgress);
    return () => client.removeListener('upload-progress', onProgress);
}
