// The documentation page: Swagger UI over /openapi.json for the HTTP API, and a plain list of the
// messages in /asyncapi.json. Every value from the documents is set as text, never as HTML.
'use strict';

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

function channelOf(doc, messageRef) {
  for (const [id, channel] of Object.entries(doc.channels || {})) {
    for (const m of Object.values(channel.messages || {})) {
      if (m.$ref === messageRef) {
        return { id, channel };
      }
    }
  }
  return null;
}

function renderMessages(doc) {
  const section = document.getElementById('messages');
  const status = document.getElementById('messages-status');
  const messages = Object.entries((doc.components || {}).messages || {});
  status.textContent = messages.length + ' message types and versions, published with mandatory=true, persistent,'
      + ' at least once; deduplicate on messageId.';
  for (const [id, message] of messages) {
    const box = el('article');
    box.className = 'message';
    box.id = 'message-' + id;
    box.appendChild(el('h3', id));
    if (message.summary) {
      box.appendChild(el('p', message.summary));
    }
    const facts = el('dl');
    const found = channelOf(doc, '#/components/messages/' + id);
    if (found) {
      const amqp = (found.channel.bindings || {}).amqp || {};
      facts.appendChild(el('dt', 'Exchange and routing key'));
      facts.appendChild(el('dd', ((amqp.exchange || {}).name || '?') + ' / ' + found.channel.address));
      facts.appendChild(el('dt', 'Ordering'));
      facts.appendChild(el('dd', found.channel.description || ''));
    }
    facts.appendChild(el('dt', 'AMQP properties'));
    facts.appendChild(el('dd', message.description || ''));
    box.appendChild(facts);
    box.appendChild(el('h4', 'Headers'));
    box.appendChild(el('pre', JSON.stringify(message.headers, null, 2)));
    box.appendChild(el('h4', 'Payload schema'));
    box.appendChild(el('pre', JSON.stringify(message.payload, null, 2)));
    for (const example of message.examples || []) {
      box.appendChild(el('h4', 'Example payload'));
      box.appendChild(el('pre', JSON.stringify(example.payload, null, 2)));
    }
    section.appendChild(box);
  }
}

window.addEventListener('DOMContentLoaded', () => {
  // eslint-disable-next-line no-undef
  SwaggerUIBundle({ url: '/openapi.json', dom_id: '#http-api', deepLinking: true });
  fetch('/asyncapi.json')
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error('HTTP ' + r.status))))
    .then(renderMessages)
    .catch((e) => {
      document.getElementById('messages-status').textContent = 'Could not load /asyncapi.json: ' + e.message;
    });
});
