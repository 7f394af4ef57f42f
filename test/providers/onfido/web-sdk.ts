/**
 * A stand-in for Onfido's web SDK, served by the replica at `/web-sdk/onfido.js`: the same global
 * `Onfido.init({ token, containerId, steps, onComplete, onError })`. It renders a tiny capture UI
 * (no camera: each "photo" is a generated few-byte test file, never a real image), uploads the
 * document and the selfie to the replica's API with the SDK token as Onfido's SDK does (Bearer
 * token; the browser's Referer checked against the token's referrer pattern), then calls
 * `onComplete` with the ids, in the shape Onfido's SDK gives: `{ document_front: { id, type, side },
 * face: { id, variant } }`. It sets no inline styles (the page's CSP allows none); the host page
 * styles its container.
 */
export const onfidoWebSdkStandIn = String.raw`(function () {
  var script = document.currentScript;
  var api = new URL(script.src).origin + '/v3.6';
  function el(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text) { node.textContent = text; }
    return node;
  }
  function upload(path, token, fields) {
    var form = new FormData();
    Object.keys(fields).forEach(function (name) { form.append(name, fields[name]); });
    form.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], { type: 'image/jpeg' }), 'capture.jpg');
    return fetch(api + path, { method: 'POST', headers: { Authorization: 'Bearer ' + token }, body: form }).then(function (response) {
      if (!response.ok) { throw new Error('upload failed: HTTP ' + response.status); }
      return response.json();
    });
  }
  window.Onfido = {
    init: function (options) {
      var container = document.getElementById(options.containerId || 'onfido-mount');
      var steps = (options.steps || ['document', 'face']).map(function (step) { return typeof step === 'string' ? step : step.type; });
      var result = {};
      var box = el('div', { 'class': 'onfido-sdk-ui-Modal-inner', 'data-onfido-stand-in': 'true' });
      container.appendChild(box);
      function fail(error) {
        box.replaceChildren(el('p', { role: 'alert' }, 'Something went wrong: ' + error.message));
        if (options.onError) { options.onError({ type: 'exception', message: error.message }); }
      }
      function show(title, body, label, action) {
        var button = el('button', { type: 'button' }, label);
        box.replaceChildren(el('h2', {}, title), el('p', {}, body), button);
        button.addEventListener('click', function () {
          button.disabled = true;
          button.textContent = 'Uploading…';
          action().catch(fail);
        });
      }
      function selfie() {
        show('Take a selfie', 'We compare it with the photo on your document.', 'Take selfie', function () {
          return upload('/live_photos', options.token, {}).then(function (photo) {
            result.face = { id: photo.id, variant: 'standard' };
            box.replaceChildren(el('p', { role: 'status' }, 'Uploaded. Finishing…'));
            options.onComplete(result);
          });
        });
      }
      function documentStep() {
        show('Photograph your passport', 'Place the photo page flat, in good light.', 'Take photo of passport', function () {
          return upload('/documents', options.token, { type: 'passport', side: 'front' }).then(function (document) {
            result.document_front = { id: document.id, type: 'passport', side: 'front' };
            if (steps.indexOf('face') >= 0) { selfie(); } else { options.onComplete(result); }
          });
        });
      }
      documentStep();
      return { tearDown: function () { box.remove(); } };
    },
  };
})();
`;
