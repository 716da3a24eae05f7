import { eraseFrom } from './outbox-eraser.repository';

describe(eraseFrom.name, () => {
  it('replaces every form of the person in every string and drops content fields, at any depth', () => {
    const body = {
      type: 'chatapp_web.message.received',
      data: {
        from: '966501234567@c.us',
        to: '+966501234567',
        text: 'hello from me',
        message: { body: 'x', caption: 'y', variables: ['a'], id: 'm1' },
        list: ['+966501234567', 3, null],
      },
    };
    expect(eraseFrom(body, ['+966501234567', '966501234567'], 'H')).toEqual({
      type: 'chatapp_web.message.received',
      data: { from: 'H@c.us', to: 'H', message: { id: 'm1' }, list: ['H', 3, null] },
    });
  });
});
