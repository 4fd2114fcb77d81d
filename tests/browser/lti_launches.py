"""LTI 1.3 launches without a browser, for tests/browser/test_hub_lti.py: run with the hub's Python (PyJWT, requests,
lti1p3platform are in .venv/hub-python), it prints one JSON object.

    python lti_launches.py attacks SETTINGS.json     # forged, replayed, expired, stale, other audience, other issuer,
                                                     # no state cookie, and one genuine launch as the control
    python lti_launches.py class SETTINGS.json       # a genuine launch for each LMS user of SETTINGS["class"], timed

SETTINGS: {"hub": base URL, "platform": base URL, "platform_key": PEM, "client_id", "user": an LMS user id,
"class": [LMS user ids]}. A launch starts where the LMS's link does (GET PLATFORM/launch?user=...), follows the OIDC
login initiation at the hub (which sets its state and nonce cookies) to the platform's authorization endpoint, reads the
form the platform signs, and posts it to the hub's callback, as a browser would; the attacks change one thing of it.
"""
import json
import re
import sys
import time
from html import unescape

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def authorization(session, settings, user):
    """The LMS's link, then the hub's login initiation: (the platform's authorization URL, the hub's cookies)."""
    link = session.get(f"{settings['platform']}/launch", params={"user": user}, allow_redirects=False)
    init = session.get(link.headers["Location"], allow_redirects=False)
    assert init.status_code == 302, (init.status_code, init.text[:500])
    return init.headers["Location"], dict(session.cookies)


def signed_form(session, url):
    page = session.get(url, allow_redirects=False)
    assert page.status_code == 200, (page.status_code, page.text[:500])
    action = unescape(re.search(r'action="([^"]+)"', page.text).group(1))
    fields = {name: unescape(value) for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', page.text)}
    return action, fields


def page_text(html):
    """The words of an error page: its scripts, styles and head left out."""
    body = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", " ", html)
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))).strip()[:800]


def post(session, action, fields, cookies=None):
    started = time.monotonic()
    response = session.post(action, data=fields, allow_redirects=False, cookies=cookies)
    return {"status": response.status_code, "location": response.headers.get("Location"),
            "logged_in": "jupyterhub-hub-login=" in response.headers.get("Set-Cookie", "").replace(
                "jupyterhub-hub-login=;", ""),
            "text": page_text(response.text),
            "seconds": round(time.monotonic() - started, 3)}


def resigned(token, key_pem, kid, **changes):
    claims = jwt.decode(token, options={"verify_signature": False})
    claims.update(changes)
    return jwt.encode(claims, key_pem, algorithm="RS256", headers={"kid": kid})


def attacks(settings):
    user, key = settings["user"], settings["platform_key"]
    kid = jwt.get_unverified_header
    out = {}

    def fresh():
        session = requests.Session()
        url, cookies = authorization(session, settings, user)
        action, fields = signed_form(session, url)
        return session, action, fields, cookies

    # forged: the launch's claims, signed with a key that is not the platform's (under the platform's kid)
    session, action, fields, _ = fresh()
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    header = kid(fields["id_token"])
    out["forged"] = post(session, action, {**fields, "id_token": resigned(fields["id_token"], stranger, header["kid"])})
    # tampered: the platform's signature kept, the claims changed (another roster name)
    session, action, fields, _ = fresh()
    head, body, signature = fields["id_token"].split(".")
    claims = jwt.decode(fields["id_token"], options={"verify_signature": False})
    claims["https://purl.imsglobal.org/spec/lti/claim/custom"]["roster_id"] = settings["other"]
    import base64

    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    out["tampered"] = post(session, action, {**fields, "id_token": f"{head}.{body}.{signature}"})
    # expired: signed by the platform, but its exp has passed
    session, action, fields, _ = fresh()
    now = int(time.time())
    out["expired"] = post(session, action, {**fields, "id_token": resigned(fields["id_token"], key, header["kid"],
                                                                           iat=now - 120, exp=now - 60)})
    # stale: not expired, but issued longer ago than the hub takes (LTI13LaunchValidator.max_age)
    session, action, fields, _ = fresh()
    out["stale"] = post(session, action, {**fields, "id_token": resigned(fields["id_token"], key, header["kid"],
                                                                         iat=now - 3600, exp=now + 600)})
    # for another tool (audience) / from another platform (issuer)
    session, action, fields, _ = fresh()
    out["other audience"] = post(session, action, {**fields, "id_token": resigned(
        fields["id_token"], key, header["kid"], aud="another-tool", azp="another-tool")})
    session, action, fields, _ = fresh()
    out["other issuer"] = post(session, action, {**fields, "id_token": resigned(
        fields["id_token"], key, header["kid"], iss="https://lms.attacker.example")})
    # another nonce: the platform's signature over a token made for another login (its nonce is not this browser's)
    session, action, fields, _ = fresh()
    other, _, other_fields, _ = fresh()
    out["nonce of another login"] = post(session, action, {**fields, "id_token": other_fields["id_token"]})
    # no state cookie: a genuine token posted from a browser that did not start the login (CSRF)
    session, action, fields, _ = fresh()
    out["no state cookie"] = post(requests.Session(), action, fields)
    # the genuine launch (the control), then the same post again with the cookies it came with (replay)
    session, action, fields, cookies = fresh()
    out["genuine"] = post(session, action, fields)
    out["replayed"] = post(requests.Session(), action, fields, cookies=cookies)
    return out


def class_launches(settings):
    """A genuine launch for each LMS user of the class, one after the other: each one's seconds (from the LMS's link
    to the hub's answer to the signed form: the hub's side of the launch; the server's start is not included)."""
    times, statuses = [], {}
    for user in settings["class"]:
        session = requests.Session()
        started = time.monotonic()
        url, _ = authorization(session, settings, user)
        action, fields = signed_form(session, url)
        result = post(session, action, fields)
        times.append(time.monotonic() - started)
        statuses[user] = result["status"]
    return {"seconds": [round(t, 3) for t in times], "statuses": statuses}


if __name__ == "__main__":
    what, path = sys.argv[1], sys.argv[2]
    settings = json.loads(open(path, encoding="utf-8").read())
    print(json.dumps(attacks(settings) if what == "attacks" else class_launches(settings)))
