// What the page says, in plain words.
const reasons = {
    blocked: 'Not sent: one of you has blocked the other in this conversation.',
    conversation_access: 'Not sent: you are no longer a member of this conversation, or it is gone.',
    account_disabled: 'Not sent: your account or your family cannot send messages at the moment.',
    storage_quota: 'Not sent: its files would take your family past its storage space.',
    attachment_policy: 'Not sent: a file is of a kind or size your family\'s plan does not allow, or its upload expired.'
};

export function conflictReason(reason) {

    return reasons[reason] ?? 'Not sent: the service refused it.';
}

export function fileSize(bytes) {

    if (bytes < 1024) {
        return `${bytes} B`;
    }

    if (bytes < 1024 * 1024) {
        return `${(bytes / 1024).toFixed(1)} KB`;
    }

    return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function time(iso) {

    return iso ? new Date(iso).toLocaleString() : '';
}

// An outbox item's state: queued, uploading n%, sending, or failed with its reason (it is tried again).
export function outboxState(item, progress) {

    if (item.state === 'uploading') {
        const parts = Object.values(progress ?? {});
        const sent = parts.reduce((sum, part) => sum + part.sent, 0);
        const total = parts.reduce((sum, part) => sum + part.total, 0) || item.files.reduce((sum, file) => sum + file.size, 0);
        return { text: `uploading ${total ? Math.floor(sent * 100 / total) : 0}%`, failed: false };
    }

    if (item.state === 'sending') {
        return { text: 'sending', failed: false };
    }

    if (item.lastError && item.lastError.code !== 'offline') {
        return { text: `not sent: ${item.lastError.message} (${item.lastError.code}). It holds the messages after it: discard it to let them go.`, failed: true };
    }

    return { text: 'queued', failed: false };
}
