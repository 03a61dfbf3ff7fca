document.body.append("explorer");
