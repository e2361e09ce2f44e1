"""A token of a script written without spaces weighs as a word with its pair and run do (words v8).

A word of a spaced script comes into the content fingerprint with its pair and its run of three
neighbours (words v2, v7); a pair of Japanese, Chinese, Thai or Khmer characters, which holds its
order already, came alone. So on a Japanese or Khmer page, what a mirror adds in English (a "Last
updated" line under the title, a notice) weighed three times what the page's own text did, and
near copies were missed: on LibreOffice Base's help in Khmer, pairs of pages of 30 words or more
dropped fell from 96.1% (v6) to 93.5% (v7). Such a token now weighs the root of the three's
squares (``Words.unspaced_weight``, 1.73): SimHash sums a word, its pair and its run as three
features, whose sum is that long. Pages of spaced scripts keep their fingerprints.
"""

from __future__ import annotations

import math

import pytest
from sites import decide_all

from contentseen.fingerprints import Scheme
from contentseen.tokens import Words

# Eight pages of a Japanese help tree (LibreOffice Base's, retold), each a short paragraph.
PAGES = {
    "フォームの作成": "フォームウィザードを使用すると、テーブルまたはクエリーを選択し、表示するフィールドを指定するだけで"
    "フォームを作成できます。作成したフォームはデザインビューで開き、コントロールの配置や書式を後から変更できます。",
    "レポートの作成": "レポートウィザードでは、データをグループ化し、並べ替えの順序とレイアウトを選んで印刷用のレポートを"
    "作成します。レポートは開くたびに最新のデータで作り直されます。",
    "クエリーの作成": "クエリーデザインでは、テーブルを追加して結合線で関連付け、表示する列と抽出条件を指定します。SQL ビュー"
    "に切り替えると、同じクエリーを SQL 文として直接編集できます。",
    "テーブルの作成": "テーブルデザインでは、フィールド名とデータの種類を一行ずつ入力し、主キーにするフィールドを選びます。"
    "保存すると、データシートビューでレコードを入力できるようになります。",
    "データベースを開く": "ファイルメニューから開くを選び、拡張子 odb のファイルを指定します。データベースウィンドウの左側で、"
    "テーブル、クエリー、フォーム、レポートのいずれかを選ぶと、その一覧が右側に表示されます。",
    "リレーションの設定": "ツールメニューのリレーションを選ぶと、テーブル間の関係を図で編集できます。一方のテーブルの主キーを"
    "他方のテーブルの対応するフィールドへドラッグすると、関係が作成されます。",
    "データのインポート": "表計算ドキュメントのセル範囲をコピーし、データベースウィンドウのテーブル領域に貼り付けると、テーブルの"
    "コピーウィザードが開きます。列の対応とデータの種類を確認してから完了を押します。",
    "バックアップ": "データベースファイルを閉じてから、別のフォルダーにコピーしておくと安全です。埋め込みデータベースの場合、"
    "すべてのテーブルとフォームが一つの odb ファイルに含まれています。",
}


class SevenWeights(Words):
    """Words v7: a token of an unspaced script weighs as a word."""

    name = "seven-weights"

    def unspaced_weight(self) -> float:
        return 1.0


def help_page(title: str, text: str, stamp: str = "") -> str:
    return ("<!DOCTYPE html><html lang='ja'><head><meta charset='utf-8'><title>" + title + "</title></head><body>"
            "<div id='TopLeftHeader'><a href='/'>LibreOffice ヘルプ</a> <a href='/base'>Base</a></div>"
            f"<div id='DisplayArea'><h1>{title}</h1>{stamp}<p>{text}</p></div>"
            "<footer>ヘルプの内容は LibreOffice 7.4 に基づいています。</footer></body></html>")


def site_and_stamped_mirror() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The help pages, and a mirror's copies, each with a "Last updated" line under its title."""
    site = [(f"http://help.test/base/{i}.html", help_page(t, x)) for i, (t, x) in enumerate(PAGES.items())]
    mirror = [(f"http://mirror.test/base/{i}.html",
               help_page(t, x, f"<p>Last updated: 2024-03-{i + 1:02d} 10:{7 * i:02d} UTC</p>"))
              for i, (t, x) in enumerate(PAGES.items())]
    return site, mirror


def test_the_weight_makes_up_for_a_words_pair_and_run():
    assert Words().unspaced_weight() == pytest.approx(math.sqrt(3))

    class Mine(Words):
        def counts(self, text, tokens):
            return tokens

    assert Mine().unspaced_weight() == 1.0  # its own words: no pairs of ours to make up for


@pytest.mark.parametrize("store", ["memory://", "sqlite"])
def test_an_english_line_on_a_mirrors_japanese_pages_moves_them_as_little_as_on_english_ones(store, tmp_path):
    site, mirror = site_and_stamped_mirror()
    url = store if store == "memory://" else f"sqlite:///{tmp_path / 'store.db'}"
    decisions = decide_all(site + mirror, url)
    assert [d.outcome for d in decisions[:len(site)]] == ["kept"] * len(site)
    dropped = [(d.match.url, u) for d, (u, _) in zip(decisions[len(site):], site) if d.outcome == "dropped"]
    assert len(dropped) >= 7 and all(match == own for match, own in dropped)  # each as its own page's copy
    # under words v7 the three English words, their pairs and their run outweighed the pages' text
    before = decide_all(site + mirror, scheme=Scheme(words=SevenWeights()))
    assert [d.outcome for d in before[len(site):]].count("dropped") < len(dropped)


def test_the_mirrors_lines_move_japanese_content_less():
    site, mirror = site_and_stamped_mirror()
    now, before = Scheme().build(), Scheme(words=SevenWeights()).build()

    def moved(pf) -> int:
        return sum((pf.of_html(a).fingerprint ^ pf.of_html(b).fingerprint).bit_count()
                   for (_, a), (_, b) in zip(site, mirror))

    assert moved(now) < moved(before)


def test_pages_of_spaced_scripts_keep_their_fingerprints():
    texts = ["The quick brown fox jumps over the lazy dog, and the dog sleeps on. " * 5,
             "Привет мир, как дела сегодня в этом городе? Всё хорошо, спасибо. " * 4,
             "Καλημέρα κόσμε, τι κάνεις σήμερα; Όλα καλά, ευχαριστώ πολύ. " * 4]
    now, before = Scheme().build(), Scheme(words=SevenWeights()).build()
    for text in texts:
        assert now.of_text(text).fingerprint == before.of_text(text).fingerprint
