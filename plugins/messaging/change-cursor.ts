import Joi from 'joi';

/** A cursor of sync or the stream as a client sends it back (the service checks what it says). */
export const changeCursorSchema = Joi.string().pattern(/^[A-Za-z0-9_-]{1,80}$/)
    .messages({ 'string.pattern.base': '{#label} must be a cursor this service gave (`next_cursor`, `cursor`, or an event\'s id), unchanged' });
